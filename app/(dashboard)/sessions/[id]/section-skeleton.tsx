/** Where a section of the session page will be, while its data loads in the browser. */
export function SectionSkeleton({ label }: { label: string }) {
  return (
    <div role="status" className="h-32 animate-pulse rounded-lg bg-zinc-100 p-4 text-sm text-zinc-500 dark:bg-zinc-900">
      {label}
    </div>
  );
}
