"use client";

import { Suspense } from "react";
import { CompletionChecks } from "./completion-checks";
import { CriteriaSection } from "./criteria-section";
import { SectionBoundary } from "./section-boundary";
import { TasksBoard } from "./tasks-board";

export function SessionOverview({ sessionId }: { sessionId: string }) {
  return (
    <div className="space-y-8">
      <SectionBoundary title="Tasks">
        <Suspense fallback={<Skeleton label="Loading tasks…" />}>
          <TasksBoard sessionId={sessionId} />
        </Suspense>
      </SectionBoundary>
      <SectionBoundary title="Success criteria">
        <Suspense fallback={<Skeleton label="Loading success criteria…" />}>
          <CriteriaSection sessionId={sessionId} />
        </Suspense>
      </SectionBoundary>
      <SectionBoundary title="Completion checks">
        <Suspense fallback={<Skeleton label="Loading completion checks…" />}>
          <CompletionChecks sessionId={sessionId} />
        </Suspense>
      </SectionBoundary>
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
