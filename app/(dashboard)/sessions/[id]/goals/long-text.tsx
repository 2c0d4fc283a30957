"use client";

import { useId, useState } from "react";
import { clip, isWebLink } from "./text-format";

/**
 * Stored text (tool output, diffs, log content) rendered as text, never as HTML. Past `lines`
 * lines or `chars` characters it is collapsed behind a "Show more" button.
 */
export function LongText({
  text,
  label,
  lines = 12,
  chars = 1500,
  mono = true,
}: {
  text: string;
  label: string;
  lines?: number;
  chars?: number;
  mono?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const { shown, hiddenLines, clipped } = clip(text, lines, chars);
  return (
    <div>
      <pre
        id={id}
        aria-label={label}
        className={`max-w-full overflow-x-auto rounded bg-zinc-50 p-2 text-xs whitespace-pre-wrap break-words dark:bg-zinc-950 ${mono ? "font-mono" : "font-sans text-sm"}`}
      >
        {open || !clipped ? text : `${shown}…`}
      </pre>
      {clipped && (
        <button
          type="button"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen(!open)}
          className="mt-1 rounded text-xs font-medium text-sky-700 hover:underline focus-visible:outline-2 focus-visible:outline-sky-600 dark:text-sky-400"
        >
          {open ? "Show less" : hiddenLines > 0 ? `Show more (${hiddenLines} more lines)` : `Show more (${text.length - shown.length} more characters)`}
        </button>
      )}
    </div>
  );
}

/** An http(s) URL as a link that opens elsewhere; anything else (paths, other schemes) as plain text. */
export function LinkOrText({ value }: { value: string }) {
  if (!isWebLink(value)) return <span className="break-all">{value}</span>;
  return (
    <a href={value.trim()} target="_blank" rel="noopener noreferrer nofollow" className="break-all text-sky-700 underline dark:text-sky-400">
      {value}
    </a>
  );
}
