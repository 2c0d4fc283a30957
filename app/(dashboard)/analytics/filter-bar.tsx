"use client";

import { useId } from "react";
import { Button } from "@/app/ui/button";
import { controlClass } from "@/app/ui/field";
import { FilterBar as Bar, DateRangeFilter, FilterControl, SourceFilter, useFollowing } from "@/app/ui/filter-bar";
import { type AnalyticsView, LABEL_MAX, analyticsSearch, clearFilters, hasFilters } from "./analytics-view";

export interface KnownLabels {
  agents: string[];
  models: string[];
}

/**
 * Date range, source, agent, model and bucket width. Lists and dates apply as soon as they change;
 * agent and model apply on Enter or Apply. Each applied change is a new address (`go`), so Back
 * undoes it and a link reproduces it.
 */
export function FilterBar({ view, go, known }: { view: AnalyticsView; go: (view: AnalyticsView) => void; known: KnownLabels }) {
  // Builds on the last change made here, not on an address that may not have caught up yet.
  const [draft, setDraft] = useFollowing(view, analyticsSearch(view));
  const [from, setFrom] = useFollowing(view.from ?? "");
  const [to, setTo] = useFollowing(view.to ?? "");
  const [agent, setAgent] = useFollowing(view.agent ?? "");
  const [model, setModel] = useFollowing(view.model ?? "");
  const agentsId = useId();
  const modelsId = useId();
  const change = (filters: Partial<AnalyticsView>) => {
    const next = { ...draft, ...filters };
    setDraft(next);
    go(next);
  };
  const typed = (value: string) => (value.trim() === "" ? null : value.trim());

  return (
    <Bar
      label="Filter analytics"
      className="mb-3 md:grid-cols-3 xl:grid-cols-[repeat(6,minmax(0,1fr))_auto]"
      onSubmit={() => {
        if (typed(agent) !== draft.agent || typed(model) !== draft.model) change({ agent: typed(agent), model: typed(model) });
      }}
    >
      <DateRangeFilter
        typed={{ from, to }}
        onType={{ from: setFrom, to: setTo }}
        applied={{ from: draft.from ?? null, to: draft.to ?? null }}
        change={change}
      />
      <SourceFilter value={draft.source ?? null} onChange={(source) => change({ source })} />
      <FilterControl label="Agent">
        {(id) => (
          <>
            <input
              id={id}
              type="text"
              list={agentsId}
              className={controlClass}
              placeholder="Any agent"
              maxLength={LABEL_MAX}
              autoComplete="off"
              value={agent}
              onChange={(event) => setAgent(event.target.value)}
            />
            <Options id={agentsId} values={known.agents} />
          </>
        )}
      </FilterControl>
      <FilterControl label="Model">
        {(id) => (
          <>
            <input
              id={id}
              type="text"
              list={modelsId}
              className={controlClass}
              placeholder="Any model"
              maxLength={LABEL_MAX}
              autoComplete="off"
              value={model}
              onChange={(event) => setModel(event.target.value)}
            />
            <Options id={modelsId} values={known.models} />
          </>
        )}
      </FilterControl>
      <FilterControl label="Group by">
        {(id) => (
          <select
            id={id}
            className={controlClass}
            value={draft.bucket}
            onChange={(event) => change({ bucket: event.target.value === "week" ? "week" : "day" })}
          >
            <option value="day">Day</option>
            <option value="week">Week (from Monday)</option>
          </select>
        )}
      </FilterControl>
      <div className="flex gap-2">
        <Button type="submit" variant="secondary">
          Apply
        </Button>
        {hasFilters(draft) && (
          <Button variant="ghost" onClick={() => change(clearFilters(draft))}>
            Clear filters
          </Button>
        )}
      </div>
    </Bar>
  );
}

function Options({ id, values }: { id: string; values: string[] }) {
  return (
    <datalist id={id}>
      {values.map((value) => (
        <option key={value} value={value} />
      ))}
    </datalist>
  );
}
