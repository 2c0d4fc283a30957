const DAY_MS = 86_400_000;

/** How long the delivery log keeps a delivered or failed delivery, unless PROOFGATE_WEBHOOK_LOG_DAYS says otherwise. */
export const DEFAULT_LOG_DAYS = 30;

/**
 * PROOFGATE_WEBHOOK_LOG_DAYS: how many days a delivered or given-up delivery stays in the log,
 * counted from its final time (delivered, or last attempt). A whole number of days, 1 or more;
 * anything else is refused with an error naming the variable, so a typo never silently keeps
 * (or deletes) more than meant.
 */
export function webhookLogDays(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PROOFGATE_WEBHOOK_LOG_DAYS;
  if (raw === undefined || raw.trim() === "") return DEFAULT_LOG_DAYS;
  const days = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(days * DAY_MS) || days < 1) {
    throw new Error(
      `PROOFGATE_WEBHOOK_LOG_DAYS must be a whole number of days, 1 or more (how long delivered and failed webhook deliveries are kept); got "${raw}"`,
    );
  }
  return days;
}

/** The one line the delivery log (Settings → Webhooks, `proofgate webhook log`) shows about it. */
export const retentionNote = (days: number) => `Delivered and failed deliveries are kept ${days} day${days === 1 ? "" : "s"} after their last attempt`;

export interface RetentionOptions {
  /** A delivered or failed delivery is deleted this long after its final time. */
  keepMs: number;
  /** How often a sweep starts (a sweep runs batch after batch until one comes back short). */
  everyMs: number;
  /** Rows deleted per write transaction: short enough never to hold the write lock for long. */
  batch: number;
}

export const retentionOptions = (days: number): RetentionOptions => ({ keepMs: days * DAY_MS, everyMs: 5 * 60_000, batch: 500 });
