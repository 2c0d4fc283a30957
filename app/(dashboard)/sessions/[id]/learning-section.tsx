"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/trpc/client";
import { LoadingBlock, QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";

/**
 * What the session's project has learned (BAZINGA's context engineering): error patterns with
 * their fixes, most confident first, and strategies, most helpful first — what the next developer
 * spawned on this project is told.
 */
export function LearningSection({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.log.sessionLearning.queryOptions({ sessionId }));
  const learning = query.data;
  if (learning === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the error patterns and strategies">
        <LoadingBlock label="Loading error patterns and strategies…" />
      </QueryFallback>
    );
  }
  const project = learning.projectId ? ` of project ${learning.projectId}` : "";
  return (
    <section aria-labelledby="learning-heading" className="space-y-3">
      <h2 id="learning-heading" className="text-lg font-semibold">
        Error patterns and strategies<span className="text-sm font-normal text-zinc-500">{project}</span>
      </h2>
      {learning.errorPatterns.length === 0 && learning.strategies.length === 0 ? (
        <EmptyState title="Nothing learned yet.">
          BAZINGA records them with <Code>save-error-pattern</Code> and <Code>extract-strategies</Code>.
        </EmptyState>
      ) : (
        <div className="grid gap-4 md:grid-cols-2">
          <div className="space-y-2">
            <h3 className="text-sm font-medium">Error patterns ({learning.errorPatterns.length})</h3>
            <ul className="space-y-2 text-sm">
              {learning.errorPatterns.map((p) => (
                <li key={`${p.projectId}|${p.patternHash}`} className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
                  <p className="font-medium">
                    {p.errorType ?? "Error"}: <span className="font-normal">{p.messagePattern}</span>
                  </p>
                  <p className="text-zinc-600 dark:text-zinc-400">Fix: {p.solution}</p>
                  <p className="text-xs text-zinc-500 tabular-nums">
                    confidence {p.confidence.toFixed(2)} · seen {p.occurrences}× {p.lang ? `· ${p.lang}` : ""}
                  </p>
                </li>
              ))}
            </ul>
          </div>
          <div className="space-y-2">
            <h3 className="text-sm font-medium">Strategies ({learning.strategies.length})</h3>
            <ul className="space-y-2 text-sm">
              {learning.strategies.map((s) => (
                <li key={s.strategyId} className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
                  <p>{s.insight}</p>
                  <p className="text-xs text-zinc-500 tabular-nums">
                    {s.topic} · helped {s.helpfulness}× {s.framework ? `· ${s.framework}` : ""}
                  </p>
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
    </section>
  );
}
