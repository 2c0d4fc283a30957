/** What shows while the goal tree loads. */
export function GoalsSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading goals" className="space-y-3">
      {[0, 1].map((i) => (
        <div key={i} className="h-40 animate-pulse rounded-lg border border-zinc-200 bg-zinc-100 dark:border-zinc-800 dark:bg-zinc-900" />
      ))}
    </div>
  );
}
