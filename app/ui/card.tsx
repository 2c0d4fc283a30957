import type { ReactNode } from "react";

/** A titled panel. `id` makes the heading the section's accessible name. */
export function Card({
  title,
  id,
  actions,
  children,
  className = "",
}: {
  title?: ReactNode;
  id?: string;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section
      aria-labelledby={title && id ? `${id}-heading` : undefined}
      className={`rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900 ${className}`}
    >
      {(title || actions) && (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          {title && (
            <h2 id={id ? `${id}-heading` : undefined} className="text-base font-semibold">
              {title}
            </h2>
          )}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}
