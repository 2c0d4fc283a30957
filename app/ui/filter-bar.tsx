"use client";

import { type FormEvent, type ReactNode, useId, useState } from "react";
import { useHydrated } from "./use-hydrated";

/**
 * The pieces every filter bar kept in the address is made of (the inbox, /activity and /analytics
 * use them): a form that is a search landmark and stays disabled
 * until hydrated, labelled controls, values that follow the address, and the notice of what in the
 * address was ignored.
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
