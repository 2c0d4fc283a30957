"use client";

import { QueryBoundary } from "@/app/ui/query-boundary";
import { CompletionChecks } from "./completion-checks";
import { CriteriaSection } from "./criteria-section";
import { TasksBoard } from "./tasks-board";

export function SessionOverview({ sessionId }: { sessionId: string }) {
  return (
    <div className="space-y-8">
      <QueryBoundary errorTitle="Could not load the tasks" fallback={<Skeleton label="Loading tasks…" />}>
        <TasksBoard sessionId={sessionId} />
      </QueryBoundary>
      <QueryBoundary errorTitle="Could not load the success criteria" fallback={<Skeleton label="Loading success criteria…" />}>
        <CriteriaSection sessionId={sessionId} />
      </QueryBoundary>
      <QueryBoundary errorTitle="Could not load the completion checks" fallback={<Skeleton label="Loading completion checks…" />}>
        <CompletionChecks sessionId={sessionId} />
      </QueryBoundary>
    </div>
  );
}

function Skeleton({ label }: { label: string }) {
  return (
    <div role="status" className="h-32 animate-pulse rounded-lg bg-zinc-100 p-4 text-sm text-zinc-500 dark:bg-zinc-900">
      {label}
    </div>
  );
}
