"use client";

import { useSyncExternalStore } from "react";

const subscribeMinute = (onChange: () => void) => {
  const timer = setInterval(onChange, 30_000);
  return () => clearInterval(timer);
};
const nowToMinute = () => Math.floor(Date.now() / 30_000) * 30_000;
const noNowOnServer = () => null;

/** The current time on the client, null during server rendering and hydration (so both render the same). */
export function useNow(): number | null {
  return useSyncExternalStore(subscribeMinute, nowToMinute, noNowOnServer);
}

/** `2026-11-21 14:03 UTC`: one unambiguous format for a team spread over time zones. */
export function formatUtc(at: Date | number): string {
  return `${new Date(at).toISOString().replace("T", " ").slice(0, 16)} UTC`;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** An absolute UTC time, followed on the client by how long ago it was. */
export function Time({ at, relative = true }: { at: Date | number; relative?: boolean }) {
  const now = useNow();
  const when = new Date(at);
  return (
    <time dateTime={when.toISOString()} title={formatUtc(when)} className="whitespace-nowrap">
      {relative && now !== null ? `${formatDuration(now - when.getTime())} ago` : formatUtc(when)}
    </time>
  );
}
