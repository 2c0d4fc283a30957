"use client";

import { type FormEvent, type ReactNode, useId, useState } from "react";
import { SESSION_SOURCES, type SessionSource } from "@/server/domain/vocabulary";
import { controlClass } from "./field";
import { useHydrated } from "./use-hydrated";

/**
 * The pieces every filter bar kept in the address is made of (the inbox, /activity, /analytics and
 * /sessions use them): a form that is a search landmark and stays disabled until hydrated, labelled
 * controls, values that follow the address, the source and date-range controls they share, and the
 * notice of what in the address was ignored.
 */

/**
 * A value being edited that follows `applied` whenever the address changes (Back, "Clear filters")
 * yet answers at once to input; `key` says when it changed, so a new object with the same content is no change.
 */
export function useFollowing<T>(applied: T, key: string = String(applied)): [T, (value: T) => void] {
  const [value, setValue] = useState(applied);
  const [followed, setFollowed] = useState(key);
  if (key !== followed) {
    setFollowed(key);
    setValue(applied);
  }
  return [value, setValue];
}

/**
 * The form: `role="search"` with its name, its controls in a grid, disabled until React owns them.
 * `className` sets the margin below and the grid's columns (by default the inbox's).
 */
export function FilterBar({ label, onSubmit, className, children }: { label: string; onSubmit: () => void; className?: string; children: ReactNode }) {
  const hydrated = useHydrated();
  return (
    <form
      role="search"
      aria-label={label}
      className={`grid grid-cols-2 items-end gap-3 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900 ${className ?? "mb-4 md:grid-cols-3 xl:grid-cols-[repeat(5,minmax(0,1fr))_auto]"}`}
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {/* Disabled until hydrated: a change made before would be lost (app/ui/use-hydrated.ts). */}
      <fieldset disabled={!hydrated} className="contents">
        {children}
      </fieldset>
    </form>
  );
}

/** One labelled control; `children` receives the id to give the control. */
export function FilterControl({ label, hint, children }: { label: string; hint?: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="min-w-0 text-sm">
      <label htmlFor={id} className="mb-1 block font-medium">
        {label} {hint && <span className="font-normal text-zinc-500">({hint})</span>}
      </label>
      {children(id)}
    </div>
  );
}

/** An exact name typed in (a session id, an actor): the caller applies it on Enter or Apply. */
export function TextFilter({ label, placeholder, value, onChange }: { label: string; placeholder: string; value: string; onChange: (value: string) => void }) {
  return (
    <FilterControl label={label}>
      {(id) => (
        <input
          id={id}
          type="text"
          className={controlClass}
          placeholder={placeholder}
          maxLength={200}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </FilterControl>
  );
}

/** "Source": any, or one session source; applies as it changes. */
export function SourceFilter({ value, onChange }: { value: SessionSource | null; onChange: (source: SessionSource | null) => void }) {
  return (
    <FilterControl label="Source">
      {(id) => (
        <select id={id} className={controlClass} value={value ?? ""} onChange={(event) => onChange((event.target.value || null) as SessionSource | null)}>
          <option value="">Any source</option>
          {SESSION_SOURCES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      )}
    </FilterControl>
  );
}

/** A typed date becomes a filter once it is a whole plausible date (while "2026" is typed, Chrome reports year 0002). */
const isWholeDate = (value: string) => value === "" || (/^\d{4}-\d{2}-\d{2}$/.test(value) && value >= "1970-01-01");

export interface DateRange {
  from: string | null;
  to: string | null;
}

/**
 * Two dates (UTC) bounding a range. `typed` is what the inputs show, kept by the caller (it decides
 * what the text follows); a date applies once whole and different from `applied`. A start after the
 * end clears the end; an end before the start does not apply.
 */
export function DateRangeFilter({
  labels = ["From", "To"],
  typed,
  onType,
  applied,
  change,
}: {
  labels?: [string, string];
  typed: { from: string; to: string };
  onType: { from: (value: string) => void; to: (value: string) => void };
  applied: DateRange;
  change: (range: Partial<DateRange>) => void;
}) {
  return (
    <>
      <FilterControl label={labels[0]} hint="UTC">
        {(id) => (
          <input
            id={id}
            type="date"
            className={controlClass}
            value={typed.from}
            max={typed.to || undefined}
            onChange={(event) => {
              const value = event.target.value;
              onType.from(value);
              if (isWholeDate(value) && value !== (applied.from ?? ""))
                change({ from: value || null, ...(applied.to && value && applied.to < value ? { to: null } : {}) });
            }}
          />
        )}
      </FilterControl>
      <FilterControl label={labels[1]} hint="UTC">
        {(id) => (
          <input
            id={id}
            type="date"
            className={controlClass}
            value={typed.to}
            min={typed.from || undefined}
            onChange={(event) => {
              const value = event.target.value;
              onType.to(value);
              if (isWholeDate(value) && value !== (applied.to ?? "") && !(value && applied.from && value < applied.from)) change({ to: value || null });
            }}
          />
        )}
      </FilterControl>
    </>
  );
}

/** What the address asked for that could not be applied, each naming the parameter and the rule. */
export function AddressProblems({ problems }: { problems: readonly string[] }) {
  if (problems.length === 0) return null;
  return (
    <div
      role="alert"
      className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
    >
      <p className="font-medium">Some of the address was ignored:</p>
      <ul className="mt-1 list-disc pl-5">
        {problems.map((problem) => (
          <li key={problem}>{problem}</li>
        ))}
      </ul>
    </div>
  );
}
