"use client";

import Link from "next/link";
import { Button } from "@/app/ui/button";
import { controlClass } from "@/app/ui/field";
import { FilterBar, FilterControl, SourceFilter, TextFilter, useFollowing } from "@/app/ui/filter-bar";
import { AGES, AGE_LABEL, type Age, DEFAULT_VIEW, type InboxView, type ResetFilter, hasFilters, inboxHref } from "./inbox-view";

/**
 * Source, age and reset apply as they change; session and blocker (typed, exact) on Enter or Apply.
 * Every change is a new address, so Back undoes it, a reload keeps it and a link reproduces it.
 */
export function InboxFilters({ view, go }: { view: InboxView; go: (view: InboxView) => void }) {
  const address = inboxHref(view);
  const [draft, setDraft] = useFollowing(view, address);
  const [session, setSession] = useFollowing(view.session ?? "", address);
  const [blockedBy, setBlockedBy] = useFollowing(view.blockedBy ?? "", address);
  const change = (filters: Partial<InboxView>) => {
    const next = { ...draft, ...filters };
    setDraft(next);
    go(next);
  };
  return (
    <FilterBar label="Filter the inbox" onSubmit={() => change({ session: session.trim() || null, blockedBy: blockedBy.trim() || null })}>
      <TextFilter label="Session" placeholder="Any session" value={session} onChange={setSession} />
      <SourceFilter value={draft.source ?? null} onChange={(source) => change({ source })} />
      <FilterControl label="Waiting at least">
        {(id) => (
          <select id={id} className={controlClass} value={draft.age ?? ""} onChange={(event) => change({ age: (event.target.value || null) as Age | null })}>
            <option value="">Any time</option>
            {(Object.keys(AGES) as Age[]).map((age) => (
              <option key={age} value={age}>
                {AGE_LABEL[age]}
              </option>
            ))}
          </select>
        )}
      </FilterControl>
      <FilterControl label="Reset">
        {(id) => (
          <select
            id={id}
            className={controlClass}
            value={draft.reset ?? ""}
            onChange={(event) => change({ reset: (event.target.value || null) as ResetFilter | null })}
          >
            <option value="">Requested or not</option>
            <option value="requested">Reset requested</option>
            <option value="none">No reset request</option>
          </select>
        )}
      </FilterControl>
      <TextFilter label="Blocked by" placeholder="verifier_1" value={blockedBy} onChange={setBlockedBy} />
      <div className="flex items-center gap-3">
        <Button type="submit" variant="secondary">
          Apply
        </Button>
        {hasFilters(draft) && (
          <Link href={inboxHref(DEFAULT_VIEW)} prefetch={false} className="text-sm text-sky-700 underline underline-offset-2 dark:text-sky-300">
            Reset filters
          </Link>
        )}
      </div>
    </FilterBar>
  );
}
