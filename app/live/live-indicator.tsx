"use client";

import { formatUtc } from "@/app/ui/time";
import { useLive } from "./live-provider";

const LOOK = {
  connecting: { dot: "bg-zinc-400", text: "Connecting…" },
  live: { dot: "bg-emerald-500", text: "Live" },
  lost: { dot: "bg-rose-500", text: "Connection lost — reconnecting" },
} as const;

/** Tells at a glance whether the page is still being updated, and since when it was not. */
export function LiveIndicator() {
  const { status, changedAt, reconnected } = useLive();
  const look = LOOK[status];
  const detail =
    status === "lost" && changedAt
      ? `lost at ${formatUtc(changedAt)}`
      : status === "live" && reconnected && changedAt
        ? `resumed at ${formatUtc(changedAt)}`
        : undefined;
  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="live-indicator"
      data-status={status}
      title={detail}
      className="flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-300"
    >
      <span aria-hidden className={`size-2 rounded-full ${look.dot} ${status === "live" ? "animate-pulse" : ""}`} />
      <span>{look.text}</span>
      {detail && <span className="hidden text-zinc-500 sm:inline">({detail})</span>}
    </div>
  );
}
