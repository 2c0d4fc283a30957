/** What stands in for the figures while the first answer loads. */
export function FiguresSkeleton() {
  return (
    <div role="status" aria-label="Loading the analytics" className="space-y-6">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading the figures…</p>
      {[0, 1, 2].map((i) => (
        <div key={i} className="animate-pulse rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
          <div className="h-5 w-48 rounded bg-zinc-200 dark:bg-zinc-800" />
          <div className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-4">
            {[0, 1, 2, 3].map((j) => (
              <div key={j} className="h-16 rounded-md bg-zinc-100 dark:bg-zinc-800" />
            ))}
          </div>
          <div className="mt-4 h-48 rounded-md bg-zinc-100 dark:bg-zinc-800" />
        </div>
      ))}
    </div>
  );
}
