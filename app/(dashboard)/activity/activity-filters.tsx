"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/trpc/client";
import { Button } from "@/app/ui/button";
import { controlClass } from "@/app/ui/field";
import { DateRangeFilter, FilterBar, FilterControl, SourceFilter, TextFilter, useFollowing } from "@/app/ui/filter-bar";
import { type ActivityView, activityHref, clearFilters, csvHref, hasFilters, withFilters } from "./activity-view";

type Filters = Partial<Omit<ActivityView, "before" | "page">>;

/**
 * Type, source and dates apply as they change; actor and session (typed, exact) on Enter or Apply.
 * Every change is a new address, so Back undoes it and a link reproduces it.
 */
export function ActivityFilters({ view, go }: { view: ActivityView; go: (view: ActivityView) => void }) {
  const trpc = useTRPC();
  const types = useQuery(trpc.events.types.queryOptions()).data ?? [];
  const address = activityHref(view);
  const [draft, setDraft] = useFollowing(view, address);
  const [actor, setActor] = useFollowing(view.actor ?? "", address);
  const [session, setSession] = useFollowing(view.session ?? "", address);
  const [from, setFrom] = useFollowing(view.from ?? "", address);
  const [to, setTo] = useFollowing(view.to ?? "", address);
  const change = (filters: Filters) => {
    const next = withFilters(draft, filters);
    setDraft(next);
    go(next);
  };
  const typeOptions = draft.type && !types.includes(draft.type) ? [draft.type, ...types] : types;

  return (
    <FilterBar
      label="Filter activity"
      className="mb-4 md:grid-cols-4 xl:grid-cols-[repeat(6,minmax(0,1fr))_auto]"
      onSubmit={() => change({ actor: actor.trim() || null, session: session.trim() || null })}
    >
      <FilterControl label="Type">
        {(id) => (
          <select id={id} className={controlClass} value={draft.type ?? ""} onChange={(event) => change({ type: event.target.value || null })}>
            <option value="">Any type</option>
            {typeOptions.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        )}
      </FilterControl>
      <TextFilter label="Actor" placeholder="developer_1" value={actor} onChange={setActor} />
      <TextFilter label="Session" placeholder="Session id" value={session} onChange={setSession} />
      <SourceFilter value={draft.source ?? null} onChange={(source) => change({ source })} />
      <DateRangeFilter
        typed={{ from, to }}
        onType={{ from: setFrom, to: setTo }}
        applied={{ from: draft.from ?? null, to: draft.to ?? null }}
        change={change}
      />
      <Button type="submit" variant="secondary">
        Apply
      </Button>
      <p className="col-span-2 flex flex-wrap gap-x-4 gap-y-1 text-sm md:col-span-4 xl:col-span-full">
        <a href={csvHref(draft)} download className="text-sky-700 underline underline-offset-2 dark:text-sky-300">
          Download CSV{hasFilters(draft) ? " of the filtered events" : " of every event"}
        </a>
        {hasFilters(draft) && (
          <Link href={activityHref(clearFilters())} prefetch={false} className="text-sky-700 underline underline-offset-2 dark:text-sky-300">
            Reset filters
          </Link>
        )}
      </p>
    </FilterBar>
  );
}
