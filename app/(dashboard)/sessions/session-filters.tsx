"use client";

import Link from "next/link";
import { type ReactNode, useId, useState } from "react";
import { SESSION_STATUSES, type SessionStatus } from "@/server/domain/vocabulary";
import { Button } from "@/app/ui/button";
import { controlClass } from "@/app/ui/field";
import { DateRangeFilter, FilterBar, FilterControl, SourceFilter, useFollowing } from "@/app/ui/filter-bar";
import { DEFAULT_VIEW, type SessionsView, clearFilters, hasFilters, sessionsHref, withFilters } from "./sessions-view";

/**
 * Search, filters and sort. Every change becomes a new address (`go`), so each is a step Back
 * undoes and a link reproduces; the search applies on Enter or the Search button.
 */
export function SessionFilters({ view, go }: { view: SessionsView; go: (view: SessionsView) => void }) {
  // The filters as the form shows them: a second change made before the first navigation finished builds on the first.
  const [draft, setDraft] = useFollowing(view, sessionsHref(view));
  // Text being typed, reset whenever the applied search changes.
  const [q, setQ] = useFollowing(view.q);
  // Dates stay local while they are being typed; they become filters once whole.
  const [from, setFrom] = useFollowing(view.from ?? "");
  const [to, setTo] = useFollowing(view.to ?? "");
  const change = (filters: Partial<Omit<SessionsView, "after" | "page">>) => {
    const next = withFilters(draft, filters);
    setDraft(next);
    go(next);
  };
  const active = [draft.status, draft.source, draft.blocked || null, draft.from, draft.to, draft.order === "oldest" || null].filter((v) => v !== null).length;
  // At phone width the filters fold away behind one button (open when some are set); wider, they are always shown.
  const [open, setOpen] = useState(active > 0);
  const controlsId = useId();

  return (
    <FilterBar
      label="Filter sessions"
      className="mb-4 md:grid-cols-4 xl:grid-cols-[minmax(14rem,2fr)_repeat(5,minmax(0,1fr))_auto]"
      onSubmit={() => {
        if (q.trim() !== draft.q) change({ q: q.trim() });
      }}
    >
      <div className="col-span-2 text-sm md:col-span-4 xl:col-span-1">
        <label htmlFor="sessions-search" className="mb-1 block font-medium">
          Search
        </label>
        <div className="flex gap-2">
          <input
            id="sessions-search"
            type="search"
            className={controlClass}
            placeholder="Session id or requirements"
            maxLength={200}
            value={q}
            onChange={(event) => setQ(event.target.value)}
          />
          <Button type="submit" variant="secondary">
            Search
          </Button>
        </div>
      </div>
      <div className="col-span-2 sm:hidden">
        <Button variant="secondary" className="w-full" aria-expanded={open} aria-controls={controlsId} onClick={() => setOpen(!open)}>
          Filters and sort{active > 0 && ` (${active} set)`}
          <span aria-hidden>{open ? "▴" : "▾"}</span>
        </Button>
      </div>
      <div id={controlsId} className={`${open ? "grid" : "hidden"} col-span-2 grid-cols-2 items-end gap-3 sm:contents`}>
        <Select label="Status" value={draft.status ?? ""} onChange={(value) => change({ status: (value || null) as SessionStatus | null })}>
          <option value="">Any status</option>
          {SESSION_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
        <SourceFilter value={draft.source ?? null} onChange={(source) => change({ source })} />
        <DateRangeFilter
          labels={["Started from", "Started to"]}
          typed={{ from, to }}
          onType={{ from: setFrom, to: setTo }}
          applied={{ from: draft.from ?? null, to: draft.to ?? null }}
          change={change}
        />
        <Select label="Sort" value={draft.order} onChange={(value) => change({ order: value === "oldest" ? "oldest" : "newest" })}>
          <option value="newest">Newest first</option>
          <option value="oldest">Oldest first</option>
        </Select>
        <label className="flex min-h-9 items-center gap-2 text-sm font-medium">
          <input type="checkbox" className="size-4 accent-sky-600" checked={draft.blocked} onChange={(event) => change({ blocked: event.target.checked })} />
          Has blocked tasks
        </label>
      </div>
      {hasFilters(draft) && (
        <p className="col-span-2 text-sm md:col-span-4 xl:col-span-full">
          <Link href={sessionsHref(clearFilters(draft))} prefetch={false} className="text-sky-700 underline underline-offset-2 dark:text-sky-300">
            Clear filters
          </Link>
          {draft.order !== DEFAULT_VIEW.order && <span className="text-zinc-500"> (keeps the sort)</span>}
        </p>
      )}
    </FilterBar>
  );
}

function Select({ label, value, onChange, children }: { label: string; value: string; onChange: (value: string) => void; children: ReactNode }) {
  return (
    <FilterControl label={label}>
      {(id) => (
        <select id={id} className={controlClass} value={value} onChange={(event) => onChange(event.target.value)}>
          {children}
        </select>
      )}
    </FilterControl>
  );
}
