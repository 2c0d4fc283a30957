"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";
import type { AnalyticsOverview } from "@/server/services/analytics/overview";
import { useTRPC } from "@/app/trpc/client";
import { Button } from "@/app/ui/button";
import { ErrorState } from "@/app/ui/states";
import { type AnalyticsView, analyticsHref, parseAnalyticsView, toOverviewInput } from "./analytics-view";
import { FigureSection } from "./figure-section";
import { FiguresSkeleton } from "./figures-skeleton";
import { FilterBar, type KnownLabels } from "./filter-bar";
import { analyticsSections, ignoredNotes } from "./sections";
import { isoDay } from "./table";

/** The view the address holds. The server page and this read the same parameters. */
function useAnalyticsView() {
  const searchParams = useSearchParams();
  return useMemo(() => parseAnalyticsView(new URLSearchParams(searchParams.toString())), [searchParams]);
}

/** Figures tell the filter bar which agents and models they have seen, to suggest them. */
const ReportLabels = createContext<(overview: AnalyticsOverview) => void>(() => {});

/**
 * The filter bar and the figures below it. A filter change rewrites the address in place
 * (history.pushState, which Next's router follows): the figures refetch through the API without a
 * server render, so the ~1 s overview is computed once per change, not twice.
 */
export function AnalyticsShell({ children }: { children: ReactNode }) {
  const { view, problems } = useAnalyticsView();
  const [known, setKnown] = useState<KnownLabels>({ agents: [], models: [] });
  const go = useCallback((next: AnalyticsView) => window.history.pushState(null, "", analyticsHref(next)), []);
  const report = useCallback((overview: AnalyticsOverview) => {
    const agents = overview.falseCompletion.byAgent.map((r) => r.agent);
    const models = [...overview.falseCompletion.byModel, ...overview.goalAttempts.byModel].flatMap((r) => (r.model === null ? [] : [r.model]));
    setKnown((previous) => {
      const merged = { agents: union(previous.agents, agents), models: union(previous.models, models) };
      return merged.agents.length === previous.agents.length && merged.models.length === previous.models.length ? previous : merged;
    });
  }, []);

  return (
    <ReportLabels.Provider value={report}>
      <FilterBar view={view} go={go} known={known} />
      {problems.length > 0 && (
        <div role="alert" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
          <p className="font-medium">Some of the address was ignored:</p>
          <ul className="mt-1 list-disc pl-5">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      {children}
    </ReportLabels.Provider>
  );
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort((x, y) => x.localeCompare(y));

/**
 * Every figure for the filters in the address. While new filters load, the figures of the previous
 * ones stay on screen, dimmed and marked busy; a failed refresh says so above them.
 */
export function AnalyticsFigures() {
  const trpc = useTRPC();
  const { view } = useAnalyticsView();
  const report = useContext(ReportLabels);
  const query = useQuery(trpc.analytics.overview.queryOptions(toOverviewInput(view), { placeholderData: keepPreviousData }));
  const { data } = query;

  useEffect(() => {
    if (data) report(data);
  }, [data, report]);

  const sections = useMemo(() => (data ? analyticsSections(data) : []), [data]);
  if (!data) {
    if (query.isError) {
      return (
        <div className="space-y-2">
          <ErrorState title="Could not load the analytics" error={query.error} />
          <Button variant="secondary" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </div>
      );
    }
    return <FiguresSkeleton />;
  }

  const updating = query.isPlaceholderData;
  // Named by the filters of the figures on screen (while new ones load, those are the previous filters).
  const f = data.filters;
  const fileTag = [f.from === null ? null : isoDay(f.from), f.to === null ? null : isoDay(f.to), f.source, f.agent, f.model, f.bucket === "week" ? "weekly" : null].filter(Boolean).join("-");
  const computedMs = Object.values(data.timings).reduce((sum, ms) => sum + ms, 0);
  return (
    <div>
      <p role="status" className="mb-3 min-h-5 text-sm text-zinc-600 dark:text-zinc-400">
        {updating ? "Updating the figures for the new filters…" : ""}
      </p>
      {query.isError && (
        <p role="alert" className="mb-3 text-sm text-rose-700 dark:text-rose-300">
          Could not refresh the figures ({query.error.message}); showing {updating ? "those of the previous filters" : "what was loaded before"}.
        </p>
      )}
      <div aria-busy={updating} data-testid="analytics-figures" className={`space-y-6 ${updating ? "opacity-60 transition-opacity" : ""}`}>
        {sections.map((section) => (
          <FigureSection key={section.id} section={section} notes={ignoredNotes(data, section.figure)} bucket={data.filters.bucket} fileTag={fileTag} />
        ))}
      </div>
      <p className="mt-6 text-xs text-zinc-500">Computed on the server in {Math.round(computedMs)} ms.</p>
    </div>
  );
}
