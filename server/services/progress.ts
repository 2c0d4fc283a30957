/**
 * Progress of long work (import, demo, check, purge, backup), reported by the service that does it and
 * shown by whoever called it: the CLI draws a bar on a terminal and prints a line every few seconds
 * otherwise. A service reports counts only; it never decides how often or how progress is shown.
 */
export interface ProgressUpdate {
  /** What is being done now, in words a user reads on the bar ("tasks", "logs", "checking invariants"). */
  phase: string;
  /** Units done so far in this phase. */
  done: number;
  /** Units in the whole phase when known in advance, else null (the bar then shows a count and a rate). */
  total: number | null;
  /** What one unit is ("rows", "sessions", "pages"). */
  unit: string;
}

export type ProgressListener = (update: ProgressUpdate) => void;

/** For callers that show nothing. */
export const noProgress: ProgressListener = () => {};
