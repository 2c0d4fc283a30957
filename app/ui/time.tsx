"use client";

import { type ReactNode, createContext, useCallback, useContext, useSyncExternalStore } from "react";

const STEP_MS = 30_000;
const subscribeMinute = (onChange: () => void) => {
  const timer = setInterval(onChange, STEP_MS);
  return () => clearInterval(timer);
};
const toStep = (at: number) => Math.floor(at / STEP_MS) * STEP_MS;
const nowToMinute = () => toStep(Date.now());

/** When the server rendered the page: its "now", which hydration must use too so both render the same text. */
const RenderedAt = createContext<number | null>(null);

/**
 * Gives the pages below the time the server rendered them at (getRenderedAt in the layout, sent
 * with the page), so "3h ago" is in the first HTML and hydration renders the same text. Rendered
 * as an absolute time instead and turned into a duration once the scripts ran, the shorter text
 * re-wrapped its line and moved what was under it (an inbox card's buttons moved 20 px up, 400 ms
 * into the page: a click aimed at them could land elsewhere).
 */
export function RenderedAtProvider({ at, children }: { at: number; children: ReactNode }) {
  return <RenderedAt.Provider value={at}>{children}</RenderedAt.Provider>;
}

/**
 * The current time, to 30 s: the server's render time while the server renders and the browser
 * hydrates (inside a RenderedAtProvider; null outside one), then the browser's clock.
 */
export function useNow(): number | null {
  const renderedAt = useContext(RenderedAt);
  const serverNow = useCallback(() => (renderedAt === null ? null : toStep(renderedAt)), [renderedAt]);
  return useSyncExternalStore(subscribeMinute, nowToMinute, serverNow);
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

/** How long ago a time was (its UTC time as the title), or the UTC time where no "now" is known. */
export function Time({ at, relative = true }: { at: Date | number; relative?: boolean }) {
  const now = useNow();
  const when = new Date(at);
  return (
    <time dateTime={when.toISOString()} title={formatUtc(when)} className="whitespace-nowrap">
      {relative && now !== null ? `${formatDuration(now - when.getTime())} ago` : formatUtc(when)}
    </time>
  );
}
