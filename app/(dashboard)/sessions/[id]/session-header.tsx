"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "@/app/trpc/client";
import { Badge, StatusBadge } from "@/app/ui/badge";
import { ProgressBar } from "@/app/ui/progress-bar";
import { Time } from "@/app/ui/time";
import { LoadingBlock, QueryFallback } from "@/app/ui/query-fallback";
import { CompletionGate } from "./completion-gate";
import { EnforcementControl, SessionStatusControl } from "./session-decisions";

/** Who ran the session, what it was for, where it stands, and whether it may complete. */
export function SessionHeader({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.session.get.queryOptions({ id: sessionId }));
  const session = query.data;
  if (session === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the session">
        <LoadingBlock label="Loading the session…" className="h-40" />
      </QueryFallback>
    );
  }
  return (
    <header data-testid="session-header" className="space-y-4">
      <div className="space-y-1">
        <p className="text-xs uppercase tracking-wide text-zinc-500">Session</p>
        <h1 className="break-all font-mono text-xl font-semibold sm:text-2xl">{session.id}</h1>
        {session.requirements && <p className="max-w-3xl whitespace-pre-wrap break-words text-zinc-700 dark:text-zinc-300">{session.requirements}</p>}
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-3 lg:grid-cols-6">
        <Fact term="Status">
          <StatusBadge status={session.status} />
        </Fact>
        <Fact term="Mode">{session.mode ?? <span className="text-zinc-500">—</span>}</Fact>
        <Fact term="Source">{session.source}</Fact>
        <Fact term="Enforcement">
          <EnforcementControl session={session} />
        </Fact>
        <Fact term="Started">
          <Time at={session.startedAt} relative={false} />
        </Fact>
        {session.endedAt && (
          <Fact term="Ended">
            <Time at={session.endedAt} relative={false} />
          </Fact>
        )}
        <Fact term="Tasks completed">
          <ProgressBar label="Tasks completed" value={session.tasksCompleted} max={session.tasksTotal} />
        </Fact>
        <Fact term="Required criteria met">
          <ProgressBar label="Required criteria met" value={session.criteriaRequiredMet} max={session.criteriaRequired} />
        </Fact>
        {session.tasksBlocked > 0 && (
          <Fact term="Blocked">
            <Badge tone="warn">{session.tasksBlocked} blocked</Badge>
          </Fact>
        )}
        {session.tasksUnverified > 0 && (
          <Fact term="Unverified">
            <Badge tone="bad">{session.tasksUnverified} unverified</Badge>
          </Fact>
        )}
      </dl>
      <SessionStatusControl session={session} />
      <CompletionGate sessionId={sessionId} />
    </header>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-500">{term}</dt>
      <dd className="mt-0.5">{children}</dd>
    </div>
  );
}
