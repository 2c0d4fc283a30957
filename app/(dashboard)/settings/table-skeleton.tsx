/** Three pulsing rows while a settings table loads. */
export function TableSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading" className="space-y-2">
      {[0, 1, 2].map((row) => (
        <div key={row} className="h-8 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
      ))}
    </div>
  );
}
