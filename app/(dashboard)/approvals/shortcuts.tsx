/** The keyboard shortcuts, listed on the page: what a person cannot do is not listed. */
export function Shortcuts({ canDecide }: { canDecide: boolean }) {
  const keys: [string, string][] = [
    ["j", "next task"],
    ["k", "previous task"],
    ...(canDecide
      ? ([
          ["x", "select or unselect the task"],
          ["a", "approve the reset (of the selected tasks, if any)"],
          ["d", "decline the reset request (of the selected tasks, if any)"],
        ] as [string, string][])
      : []),
  ];
  return (
    <section aria-label="Keyboard shortcuts" className="text-xs text-zinc-600 dark:text-zinc-400">
      <h2 className="sr-only">Keyboard shortcuts</h2>
      <dl className="flex flex-wrap gap-x-4 gap-y-1">
        {keys.map(([key, does]) => (
          <div key={key} className="flex items-center gap-1.5">
            <dt>
              <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1.5 font-mono text-zinc-900 dark:border-zinc-700 dark:bg-zinc-800 dark:text-zinc-100">
                {key}
              </kbd>
            </dt>
            <dd>{does}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
