/** A labelled progress bar that also shows the figures, so it reads without colour. */
export function ProgressBar({ label, value, max }: { label: string; value: number; max: number }) {
  const percent = max === 0 ? 0 : Math.round((value / max) * 100);
  return (
    <div className="flex items-center gap-2">
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={value}
        className="h-2 w-24 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
      >
        <div className="h-full bg-emerald-500" style={{ width: `${percent}%` }} />
      </div>
      <span className="tabular-nums text-xs">
        {value}/{max}
      </span>
    </div>
  );
}
