"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/trpc/client";
import { QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { GoalCard } from "./goal-card";
import { GoalsSkeleton } from "./goals-skeleton";
import type { GoalNode } from "./types";

function countAll(nodes: readonly GoalNode[]): { goals: number; attempts: number } {
  return nodes.reduce(
    (sum, node) => {
      const below = countAll(node.children);
      return { goals: sum.goals + 1 + below.goals, attempts: sum.attempts + node.attempts.length + below.attempts };
    },
    { goals: 0, attempts: 0 },
  );
}

/** The session's goal tree, live: every ledger event refetches it. */
export function GoalsClient({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.goal.tree.queryOptions({ sessionId }));
  const { data } = query;
  if (data === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the goals">
        <GoalsSkeleton />
      </QueryFallback>
    );
  }
  if (data.goals.length === 0) {
    return (
      <EmptyState title="No goals in this session.">
        Agents create goals with <Code>proofgate create-goal {sessionId} &quot;…&quot;</Code>, give them a contract with{" "}
        <Code>proofgate set-goal-contract</Code>, and record attempts with <Code>proofgate start-attempt</Code>.
      </EmptyState>
    );
  }
  const totals = countAll(data.goals);
  return (
    <div className="space-y-4">
      <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="goal-totals">
        {totals.goals} goal{totals.goals === 1 ? "" : "s"}, {totals.attempts} attempt{totals.attempts === 1 ? "" : "s"}
      </p>
      <ol className="space-y-4">
        {data.goals.map((node) => (
          <li key={node.goal.id}>
            <GoalCard node={node} level={3} />
          </li>
        ))}
      </ol>
    </div>
  );
}
