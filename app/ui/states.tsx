import type { ReactNode } from "react";

/** What a new user sees where there is nothing yet — and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-zinc-300 p-6 text-sm dark:border-zinc-700">
      <p className="font-medium">{title}</p>
      {children && <div className="mt-1 text-zinc-600 dark:text-zinc-400">{children}</div>}
    </div>
  );
}

/** A failed load is shown as a failure, never as an empty table. */
export function ErrorState({ title = "Could not load this", error }: { title?: string; error: unknown }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div
      role="alert"
      className="rounded-lg border border-rose-300 bg-rose-50 p-4 text-sm text-rose-900 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-100"
    >
      <p className="font-medium">{title}</p>
      <p className="mt-1 break-words">{message}</p>
    </div>
  );
}

export function Code({ children }: { children: ReactNode }) {
  return <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.85em] dark:bg-zinc-800">{children}</code>;
}
