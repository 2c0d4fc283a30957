"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";
import type { AnalyticsOverview } from "@/server/services/analytics/overview";
import { useTRPC } from "@/app/trpc/client";
import { Button } from "@/app/ui/button";
import { AddressProblems } from "@/app/ui/filter-bar";
import { ErrorState } from "@/app/ui/states";
import { useHydrated } from "@/app/ui/use-hydrated";
import { type AnalyticsView, analyticsHref, parseAnalyticsView, toOverviewInput } from "./analytics-view";
import { FigureSection } from "./figure-section";
import { FiguresSkeleton } from "./figures-skeleton";
import { FilterBar, type KnownLabels } from "./filter-bar";
import { analyticsSections, ignoredNotes } from "./sections";
import { isoDay } from "./table";

interface ViewState {
  view: AnalyticsView;
  /** The view the server rendered the figures for. */
  initial: AnalyticsView;
  /** Figures tell the filter bar which agents and models they have seen, to suggest them. */
  report: (overview: AnalyticsOverview) => void;
}
const ViewContext = createContext<ViewState | null>(null);

function useViewState(): ViewState {
  const state = useContext(ViewContext);
  if (!state) throw new Error("AnalyticsFigures must be rendered inside AnalyticsShell");
  return state;
}

/**
 * The filter bar and the figures below it. The filters live in this component's state, started
 * from the address the server rendered; a change is written back to the address with
 * history.pushState (Back undoes it, a link reproduces it) but renders nothing on the server: the
 * figures refetch through the API, so the ~1 s overview is computed once per change, not twice.
 * Owning the state here, rather than reading it back from the router, keeps a change made before
 * the router has finished starting up from being lost.
 */
export function AnalyticsShell({ initial, problems, children }: { initial: AnalyticsView; problems: string[]; children: ReactNode }) {
  const [view, setView] = useState(initial);
  const [known, setKnown] = useState<KnownLabels>({ agents: [], models: [] });
  // The address's problems concern the address as loaded; a change writes a clean one.
  const [addressProblems, setAddressProblems] = useState(problems);
  const go = useCallback((next: AnalyticsView) => {
    setView(next);
    setAddressProblems([]);
    window.history.pushState(null, "", analyticsHref(next));
  }, []);
  useEffect(() => {
    const onPopState = () => setView(parseAnalyticsView(new URLSearchParams(window.location.search)).view);
    window.addEventListener("popstate", onPopState);
    return () => window.removeEventListener("popstate", onPopState);
  }, []);
  const report = useCallback((overview: AnalyticsOverview) => {
    const agents = overview.falseCompletion.byAgent.map((r) => r.agent);
    const models = [...overview.falseCompletion.byModel, ...overview.goalAttempts.byModel].flatMap((r) => (r.model === null ? [] : [r.model]));
    setKnown((previous) => {
      const merged = { agents: union(previous.agents, agents), models: union(previous.models, models) };
      return merged.agents.length === previous.agents.length && merged.models.length === previous.models.length ? previous : merged;
    });
  }, []);
  const state = useMemo(() => ({ view, initial, report }), [view, initial, report]);

  return (
    <ViewContext.Provider value={state}>
      <FilterBar view={view} go={go} known={known} />
      <AddressProblems problems={addressProblems} />
      {children}
    </ViewContext.Provider>
  );
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort((x, y) => x.localeCompare(y));

/**
 * Every figure for the filters in the address. While new filters load, the figures of the previous
 * ones stay on screen, dimmed and marked busy; a failed refresh says so above them.
 */
export function AnalyticsFigures() {
  const trpc = useTRPC();
  const { view: current, initial, report } = useViewState();
  // Hydrate with the filters the server rendered, even when they changed before the figures
  // hydrated (the filter bar can answer first); the next render then asks for the new ones.
  const view = useHydrated() ? current : initial;
  const query = useQuery(trpc.analytics.overview.queryOptions(toOverviewInput(view), { placeholderData: keepPreviousData }));
  const { data } = query;

  useEffect(() => {
    if (data) report(data);
  }, [data, report]);

  // Shaped once per answer; FigureSection redraws only the figures whose shape changed.
  const sections = useMemo(() => (data ? analyticsSections(data).map((section) => ({ section, notes: ignoredNotes(data, section.figure) })) : []), [data]);
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

  // Figures of the previous filters, while those asked for load. (A failed load of new filters
  // has no data to show: it is the error above.)
  const updating = query.isPlaceholderData;
  // Named by the filters of the figures on screen (while new ones load, those are the previous filters).
  const f = data.filters;
  const fileTag = [
    f.from === null ? null : isoDay(f.from),
    f.to === null ? null : isoDay(f.to),
    f.source,
    f.agent,
    f.model,
    f.bucket === "week" ? "weekly" : null,
  ]
    .filter(Boolean)
    .join("-");
  const computedMs = Object.values(data.timings).reduce((sum, ms) => sum + ms, 0);
  return (
    <div>
      <p role="status" className="mb-3 min-h-5 text-sm text-zinc-600 dark:text-zinc-400">
        {updating ? "Updating the figures for the new filters…" : ""}
      </p>
      {query.isError && (
        <div className="mb-3 flex flex-wrap items-center gap-3">
          <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
            Could not refresh the figures ({query.error.message}); showing what was loaded before.
          </p>
          <Button variant="secondary" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </div>
      )}
      <div aria-busy={updating} data-testid="analytics-figures" className={`space-y-6 ${updating ? "opacity-60 transition-opacity" : ""}`}>
        {sections.map(({ section, notes }) => (
          <FigureSection key={section.id} section={section} notes={notes} bucket={data.filters.bucket} fileTag={fileTag} />
        ))}
      </div>
      <p className="mt-6 text-xs text-zinc-500">Computed on the server in {Math.round(computedMs)} ms.</p>
    </div>
  );
}
