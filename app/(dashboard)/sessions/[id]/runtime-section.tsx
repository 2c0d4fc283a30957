"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { QueryFallback } from "@/app/ui/query-fallback";
import { Time } from "@/app/ui/time";

const CAUSE = { max_blocks: "after the cap of held stops", stop_hook_active: "another stop hook was already continuing the turn" } as const;

/**
 * The agent runtime (Claude Code) session this session was created in, and each of its stops that
 * Proofgate held (with the reasons the agent was given) or let through with the gate rejecting.
 * Nothing when the session was not created inside a runtime session.
 */
export function RuntimeSection({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.runtime.activity.queryOptions({ sessionId }));
  const activity = query.data;
  if (activity === undefined)
    return (
      <QueryFallback query={query} errorTitle="Could not load the runtime session">
        {null}
      </QueryFallback>
    );
  if (activity.runtimeSessions.length === 0 && activity.stops.length === 0) return null;
  const unverified = activity.stops.filter((s) => s.kind === "unverified").length;
  return (
    <section aria-labelledby="runtime-heading" className="space-y-3">
      <h2 id="runtime-heading" className="text-lg font-semibold">
        Agent runtime{" "}
        {unverified > 0 && (
          <Badge tone="bad" className="ml-1 align-middle">
            {unverified} stopped unverified
          </Badge>
        )}
      </h2>
      <ul className="space-y-1 text-sm">
        {activity.runtimeSessions.map((r) => (
          <li key={`${r.runtime}:${r.externalId}`} data-testid="runtime-session">
            <Badge tone="info">{r.runtime}</Badge> session <span className="font-mono text-xs">{r.externalId}</span>
            {r.cwd && <span className="text-zinc-500"> in {r.cwd}</span>}
            <span className="text-zinc-500">
              {" "}
              · linked <Time at={r.linkedAt} /> · last seen <Time at={r.lastSeenAt} /> (
              {r.source === "command" ? "no SessionStart reported" : `last ${r.source}`})
            </span>
          </li>
        ))}
      </ul>
      {activity.stops.length === 0 ? (
        <p className="text-sm text-zinc-500">No stop has been held: the agent has not tried to stop while the completion gate rejects.</p>
      ) : (
        <ol className="space-y-2" aria-label="Stops held or let through, newest first">
          {activity.stops.map((stop) => (
            <li
              key={stop.id}
              data-testid={stop.kind === "held" ? "stop-held" : "stop-unverified"}
              className={`rounded-lg border p-3 text-sm ${stop.kind === "held" ? "border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40" : "border-rose-300 bg-rose-50 dark:border-rose-800 dark:bg-rose-950/40"}`}
            >
              <p className="flex flex-wrap items-center gap-2">
                {stop.kind === "held" ? (
                  <Badge tone="warn">Stop held{stop.block !== null && stop.maxBlocks !== null ? ` ${stop.block} of ${stop.maxBlocks}` : ""}</Badge>
                ) : (
                  <Badge tone="bad">Stopped with the gate rejected</Badge>
                )}
                <span className="text-zinc-600 dark:text-zinc-400">
                  {stop.event === "SubagentStop" ? `subagent${stop.agentType ? ` ${stop.agentType}` : ""}` : "agent"} · {stop.actor} · <Time at={stop.at} />
                </span>
              </p>
              {stop.kind === "unverified" && stop.cause && (
                <p className="mt-1 text-xs text-rose-800 dark:text-rose-300">Let through {CAUSE[stop.cause as keyof typeof CAUSE] ?? stop.cause}.</p>
              )}
              <ul className="mt-2 list-disc space-y-1 pl-5">
                {stop.reasons.map((reason, i) => (
                  <li key={i}>
                    {reason}
                    {stop.fixes[i] && <p className="font-mono text-xs text-zinc-600 dark:text-zinc-400">fix: {stop.fixes[i]}</p>}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
