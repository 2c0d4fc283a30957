"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useState } from "react";
import { useTRPC, useTRPCClient } from "@/app/trpc/client";
import { Button } from "@/app/ui/button";
import { controlClass } from "@/app/ui/field";
import { Code, EmptyState, ErrorState } from "@/app/ui/states";
import { LogEntryItem } from "./log-entry";
import { LOG_TYPES, type LogFilters, REASONING_PHASES, logFiltersQuery, logListInput, normalizeLogFilters } from "./log-filters";
import { useHydrated } from "@/app/ui/use-hydrated";

/** How long typing pauses before the search runs. */
const SEARCH_DELAY_MS = 300;

/**
 * The session's logs and reasoning, newest first, filtered by agent, type, phase and text. Pages
 * load by keyset as the reader asks for older rows; the filters live in the URL.
 */
export function LogsClient({ sessionId, initialFilters }: { sessionId: string; initialFilters: LogFilters }) {
  const hydrated = useHydrated();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const [filters, setFilters] = useState(initialFilters);
  // What is typed; it becomes a filter once typing pauses.
  const [search, setSearch] = useState(initialFilters.q ?? "");
  const [agentText, setAgentText] = useState(initialFilters.agent ?? "");
  const ids = { agent: useId(), type: useId(), phase: useId(), q: useId(), agents: useId() };

  const patch = (change: Partial<LogFilters>) =>
    setFilters((current) => {
      const next = normalizeLogFilters({ ...current, ...change });
      return logFiltersQuery(next) === logFiltersQuery(current) ? current : next;
    });

  useEffect(() => {
    // Next keeps useSearchParams in step with history.replaceState, without a server round trip.
    const url = `${window.location.pathname}${logFiltersQuery(filters)}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, "", url);
  }, [filters]);

  useEffect(() => {
    const timer = setTimeout(() => patch({ q: search, agent: agentText }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search, agentText]);

  const input = logListInput(sessionId, filters);
  const query = useInfiniteQuery({
    queryKey: trpc.log.list.infiniteQueryKey(input),
    // log.list's strict input takes `cursor` but not the `direction` tRPC's infinite helper adds.
    queryFn: ({ pageParam, signal }) => client.log.list.query(pageParam === null ? input : { ...input, cursor: pageParam }, { signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (page) => page.nextCursor,
    placeholderData: keepPreviousData,
  });

  const entries = useMemo(() => query.data?.pages.flatMap((page) => page.items) ?? [], [query.data]);
  // Suggestions only: the agent filter takes any name, as the API does.
  const seenAgents = useMemo(() => [...new Set(entries.map((entry) => entry.agentType))].sort(), [entries]);

  const filtered = Object.keys(filters).length > 0;
  const phaseApplies = filters.type === undefined || filters.type === "reasoning";

  return (
    <div className="space-y-4">
      <form
        role="search"
        aria-label="Filter logs"
        className="grid grid-cols-2 gap-3 lg:grid-cols-[1fr_1fr_1fr_2fr_auto] lg:items-end"
        onSubmit={(e) => e.preventDefault()}
      >
        {/* Disabled until hydrated: a change made before would be lost (app/ui/use-hydrated.ts). */}
        <fieldset disabled={!hydrated} className="contents">
          <div className="text-sm">
            <label htmlFor={ids.agent} className="mb-1 block font-medium">
              Agent
            </label>
            <input
              id={ids.agent}
              list={ids.agents}
              className={controlClass}
              placeholder="any agent"
              value={agentText}
              onChange={(e) => setAgentText(e.currentTarget.value)}
            />
            <datalist id={ids.agents}>
              {seenAgents.map((agent) => (
                <option key={agent} value={agent} />
              ))}
            </datalist>
          </div>
          <div className="text-sm">
            <label htmlFor={ids.type} className="mb-1 block font-medium">
              Type
            </label>
            <select
              id={ids.type}
              className={controlClass}
              value={filters.type ?? ""}
              onChange={(e) => patch({ type: (e.currentTarget.value || undefined) as LogFilters["type"] })}
            >
              <option value="">all types</option>
              {LOG_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </div>
          <div className="text-sm">
            <label htmlFor={ids.phase} className="mb-1 block font-medium">
              Reasoning phase
            </label>
            <select
              id={ids.phase}
              className={controlClass}
              value={filters.phase ?? ""}
              disabled={!phaseApplies}
              onChange={(e) => patch({ phase: (e.currentTarget.value || undefined) as LogFilters["phase"] })}
            >
              <option value="">all phases</option>
              {REASONING_PHASES.map((phase) => (
                <option key={phase} value={phase}>
                  {phase}
                </option>
              ))}
            </select>
          </div>
          <div className="col-span-2 text-sm lg:col-span-1">
            <label htmlFor={ids.q} className="mb-1 block font-medium">
              Search text
            </label>
            <input
              id={ids.q}
              type="search"
              className={controlClass}
              placeholder="words in the content or payload"
              value={search}
              onChange={(e) => setSearch(e.currentTarget.value)}
            />
          </div>
          <Button
            variant="secondary"
            className="col-span-2 lg:col-span-1"
            disabled={!filtered && search === "" && agentText === ""}
            onClick={() => {
              setSearch("");
              setAgentText("");
              setFilters({});
            }}
          >
            Clear filters
          </Button>
        </fieldset>
      </form>

      {query.isPending ? (
        <div
          aria-busy="true"
          aria-label="Loading logs"
          className="h-64 animate-pulse rounded-lg border border-zinc-200 bg-zinc-100 dark:border-zinc-800 dark:bg-zinc-900"
        />
      ) : query.isError && !query.data ? (
        <ErrorState title="Could not load the logs" error={query.error} />
      ) : entries.length === 0 ? (
        filtered ? (
          <EmptyState title="No log entries match these filters.">Change or clear the filters to see more.</EmptyState>
        ) : (
          <EmptyState title="No logs in this session yet.">
            Agents log with <Code>proofgate log-interaction {sessionId} developer &quot;…&quot;</Code> and record reasoning with{" "}
            <Code>proofgate save-reasoning</Code>.
          </EmptyState>
        )
      ) : (
        <div className={query.isPlaceholderData ? "opacity-60 transition-opacity" : undefined}>
          <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400" aria-live="polite" data-testid="log-count">
            Showing {entries.length} {entries.length === 1 ? "entry" : "entries"}
            {filtered && " matching the filters"}, newest first{query.hasNextPage ? "" : " — the whole log"}
          </p>
          <ol aria-label="Log entries" className="rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
            {entries.map((entry) => (
              <LogEntryItem key={entry.id} entry={entry} />
            ))}
          </ol>
          <div className="mt-3 flex flex-wrap items-center gap-3">
            {query.hasNextPage ? (
              <Button variant="secondary" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage || query.isPlaceholderData}>
                {query.isFetchingNextPage ? "Loading…" : "Load older"}
              </Button>
            ) : (
              <p className="text-sm text-zinc-500">No older entries.</p>
            )}
          </div>
          {query.isFetchNextPageError && <ErrorState title="Could not load older entries" error={query.error} />}
          {query.isRefetchError && <ErrorState title="Could not refresh the logs" error={query.error} />}
        </div>
      )}
    </div>
  );
}
