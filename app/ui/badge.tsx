import type { ReactNode } from "react";

const TONES = {
  neutral: "bg-zinc-100 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  info: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  good: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  warn: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  bad: "bg-rose-100 text-rose-900 dark:bg-rose-950 dark:text-rose-200",
  accent: "bg-violet-100 text-violet-900 dark:bg-violet-950 dark:text-violet-200",
} as const;

export type Tone = keyof typeof TONES;

const STATUS_TONES: Record<string, Tone> = {
  // sessions
  active: "info",
  completed: "good",
  failed: "bad",
  // tasks
  pending: "neutral",
  in_progress: "info",
  claimed: "accent",
  verified: "good",
  blocked: "warn",
  // criteria and gates
  met: "good",
  accepted: "good",
  rejected: "bad",
  SUCCESS: "good",
  PARTIAL: "warn",
  BLOCKED: "bad",
  MET: "good",
  NOT_MET: "bad",
  UNKNOWN: "neutral",
  // attempts
  success: "good",
  error: "bad",
  timeout: "warn",
  tool_limit: "warn",
};

export function Badge({ tone = "neutral", children, className = "" }: { tone?: Tone; children: ReactNode; className?: string }) {
  return <span className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[tone]} ${className}`}>{children}</span>;
}

/** A status word in the colour every page uses for it. Underscores read as spaces. */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONES[status] ?? "neutral"}>{status.replaceAll("_", " ")}</Badge>;
}
