import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { sql } from "drizzle-orm";
import { type Db, writeTransaction } from "@/db/client";
import { rawAll, rawGet, rawRun } from "@/db/query";
import { DEFAULT_RETRY, type NotifiedEvent, type RetryPolicy, nextAttemptAt, slackMessage, webhookHost, webhookPayload } from "@/server/domain/webhooks";
import { type RetentionOptions, retentionOptions, webhookLogDays } from "./retention";
import { openSecret } from "./secret-box";
import { type ResolveHost, postPinned, privateTargetsAllowed, resolveReceiver, systemResolver } from "./targets";

export interface DispatcherOptions {
  retry: RetryPolicy;
  /** How long one POST may take before it counts as failed. */
  timeoutMs: number;
  /** How often the outbox is read for due deliveries while it is idle. */
  pollMs: number;
  /** How long a claimed delivery is this process's; after that another may take it (this one crashed). */
  leaseMs: number;
  /** Deliveries claimed (and sent in parallel) at once. */
  batch: number;
  /** The dashboard's public URL, for links in the messages. */
  baseUrl?: string;
  /** When delivered and failed deliveries leave the log (pending ones never do). */
  retention: RetentionOptions;
  /** Whether receivers may be on loopback, private, link-local or unique-local addresses (PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivate: boolean;
  /** How a receiver's name is resolved (dns.lookup, every address); tests inject their own. */
  resolve?: ResolveHost;
}

const num = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
};

/**
 * The dispatcher's settings from the environment, each with a default fit for production:
 * PROOFGATE_WEBHOOK_RETRY_BASE_MS (5 s, doubled per failure), PROOFGATE_WEBHOOK_RETRY_MAX_MS (1 h),
 * PROOFGATE_WEBHOOK_GIVE_UP_MS (24 h), PROOFGATE_WEBHOOK_TIMEOUT_MS (10 s), PROOFGATE_WEBHOOK_POLL_MS
 * (250 ms), PROOFGATE_WEBHOOK_LEASE_MS (the timeout + 30 s: how long a claim outlives a crashed
 * process); links use PROOFGATE_URL, the dashboard's public address. PROOFGATE_WEBHOOK_LOG_DAYS
 * (30) is how long delivered and failed deliveries stay in the log; a bad value throws, naming it.
 * PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1 lets deliveries reach loopback, private, link-local and unique-local addresses.
 */
export function dispatcherOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DispatcherOptions {
  const timeoutMs = num(env.PROOFGATE_WEBHOOK_TIMEOUT_MS, 10_000);
  return {
    retry: {
      baseMs: num(env.PROOFGATE_WEBHOOK_RETRY_BASE_MS, DEFAULT_RETRY.baseMs),
      maxMs: num(env.PROOFGATE_WEBHOOK_RETRY_MAX_MS, DEFAULT_RETRY.maxMs),
      giveUpAfterMs: num(env.PROOFGATE_WEBHOOK_GIVE_UP_MS, DEFAULT_RETRY.giveUpAfterMs),
    },
    timeoutMs,
    pollMs: num(env.PROOFGATE_WEBHOOK_POLL_MS, 250),
    leaseMs: num(env.PROOFGATE_WEBHOOK_LEASE_MS, timeoutMs + 30_000),
    batch: 10,
    baseUrl: env.PROOFGATE_URL?.trim() || undefined,
    retention: retentionOptions(webhookLogDays(env)),
    allowPrivate: privateTargetsAllowed(env),
  };
}

interface Claimed {
  id: number;
  subscriptionId: number;
  eventId: number;
  eventType: string;
  attempts: number;
  createdAt: number;
  url: string;
  format: "json" | "slack";
  secretSealed: string;
}

/**
 * Take up to `batch` due deliveries for `owner`: in one write transaction (SQLite's write lock makes
 * it atomic across processes), rows that are pending, due, and not leased by a live claim get this
 * owner's lease. A process that dies holding a lease loses it when it expires; the row is then due again.
 */
export async function claimDue(db: Db, owner: string, now: number, options: Pick<DispatcherOptions, "leaseMs" | "batch">): Promise<Claimed[]> {
  // The same SQL on both engines (aliases quoted: PostgreSQL folds unquoted names to lower case).
  return writeTransaction(db, (tx) =>
    rawAll<Claimed>(
      tx,
      sql`UPDATE webhook_deliveries SET lease_owner = ${owner}, lease_until = ${now + options.leaseMs}
         WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
                      ORDER BY next_attempt_at, id LIMIT ${options.batch})
         RETURNING id, subscription_id AS "subscriptionId", event_id AS "eventId", event_type AS "eventType", attempts, created_at AS "createdAt",
           (SELECT url FROM webhook_subscriptions s WHERE s.id = subscription_id) AS url,
           (SELECT format FROM webhook_subscriptions s WHERE s.id = subscription_id) AS format,
           (SELECT secret_sealed FROM webhook_subscriptions s WHERE s.id = subscription_id) AS "secretSealed"`,
    ),
  );
}

interface Outcome {
  ok: boolean;
  responseCode: number | null;
  error: string | null;
  /** Never worth a retry: the receiver's address is one deliveries may not reach. */
  final?: boolean;
}

async function loadEvent(db: Db, id: number): Promise<NotifiedEvent | null> {
  const row = await rawGet<(Omit<NotifiedEvent, "at" | "data"> & { at: number; data: string | null }) | undefined>(
    db,
    sql`SELECT id, at, type, session_id AS "sessionId", entity, entity_id AS "entityId", actor, role, data FROM events WHERE id = ${id}`,
  );
  if (!row) return null;
  return { ...row, at: new Date(row.at), data: row.data ? (JSON.parse(row.data) as Record<string, unknown>) : null };
}

/** The body and headers of one delivery: the same `webhook-id` on every retry, so a receiver can drop duplicates. */
export function signedRequest(db: Db, delivery: Claimed, event: NotifiedEvent, baseUrl: string | undefined, now: Date) {
  const body = JSON.stringify(
    delivery.format === "slack" ? slackMessage(delivery.eventType, event, baseUrl) : webhookPayload(delivery.eventType, event, baseUrl),
  );
  const id = `pgwh_${delivery.id}`;
  const signature = new Webhook(openSecret(db, delivery.secretSealed)).sign(id, now, body);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "Proofgate-Webhooks/1",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signature,
    },
  };
}

async function send(db: Db, delivery: Claimed, options: DispatcherOptions): Promise<Outcome> {
  const event = await loadEvent(db, delivery.eventId);
  if (!event) return { ok: false, responseCode: null, error: `event #${delivery.eventId} no longer exists (purged)` };
  let request: ReturnType<typeof signedRequest>;
  try {
    request = signedRequest(db, delivery, event, options.baseUrl, new Date());
  } catch (error) {
    return { ok: false, responseCode: null, error: (error as Error).message };
  }
  const signal = AbortSignal.timeout(options.timeoutMs);
  const host = webhookHost(delivery.url) ?? "the receiver";
  try {
    const target = await resolveReceiver(delivery.url, { allowPrivate: options.allowPrivate, resolve: options.resolve ?? systemResolver, signal });
    // Refused before any connection: the log says why, and never what such an address would have answered.
    if (!target.ok) return { ok: false, responseCode: null, error: target.error, final: target.refused };
    const response = await postPinned(delivery.url, target.addresses, request, signal);
    if (response.status >= 200 && response.status < 300) return { ok: true, responseCode: response.status, error: null };
    return { ok: false, responseCode: response.status, error: `the receiver answered ${response.status} ${response.statusText}`.trim() };
  } catch (error) {
    const reason = signal.aborted ? `no answer within ${options.timeoutMs} ms` : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    return { ok: false, responseCode: null, error: `could not reach ${host}: ${reason}` };
  }
}

/** Record an attempt's outcome, if this owner still holds the lease (otherwise another process took the row over). */
async function record(db: Db, owner: string, delivery: Claimed, outcome: Outcome, retry: RetryPolicy): Promise<void> {
  const now = Date.now();
  const attempts = delivery.attempts + 1;
  const next = outcome.ok || outcome.final ? null : nextAttemptAt(retry, attempts, delivery.createdAt, now);
  const status = outcome.ok ? "delivered" : next === null ? "failed" : "pending";
  await writeTransaction(db, (tx) =>
    rawRun(
      tx,
      sql`UPDATE webhook_deliveries SET status = ${status}, attempts = ${attempts}, response_code = ${outcome.responseCode}, last_error = ${outcome.error},
           last_attempt_at = ${now}, delivered_at = ${outcome.ok ? now : null}, next_attempt_at = coalesce(${next}, next_attempt_at), lease_owner = NULL, lease_until = NULL
         WHERE id = ${delivery.id} AND lease_owner = ${owner}`,
    ),
  );
}

/** One pass: claim what is due, send it all, record each outcome. Returns how many were claimed. */
export async function dispatchOnce(db: Db, owner: string, options: DispatcherOptions): Promise<number> {
  const claimed = await claimDue(db, owner, Date.now(), options);
  await Promise.all(claimed.map(async (delivery) => record(db, owner, delivery, await send(db, delivery, options), options.retry)));
  return claimed.length;
}

export interface Dispatcher {
  owner: string;
  stop(): Promise<void>;
}

/**
 * Delete up to `batch` delivered or failed deliveries whose final time — `delivered_at`, else
 * `last_attempt_at`, else `created_at` — is before `cutoff`, oldest first, in one short write
 * transaction. Pending rows are never touched (they are still owed to a receiver). Returns how
 * many were deleted: `batch` means there may be more.
 *
 * No index covers the final time, so only the oldest `batch × 20` rows (by id, the primary key)
 * are looked at: never a scan of the whole log, however large, while the write lock is held. Ids
 * grow with the creation time and a delivery ends at most the give-up window after it was created,
 * so the deletable rows are at the head of the log; one can only wait behind a head full of
 * deliveries still within their retention, and then for at most that window.
 */
export async function pruneDeliveries(db: Db, cutoff: number, batch: number): Promise<number> {
  return writeTransaction(
    db,
    async (tx) =>
      (
        await rawRun(
          tx,
          sql`DELETE FROM webhook_deliveries WHERE id IN (
             SELECT id FROM (SELECT id, status, coalesce(delivered_at, last_attempt_at, created_at) AS final_at FROM webhook_deliveries ORDER BY id LIMIT ${batch * 20}) head
             WHERE status IN ('delivered', 'failed') AND final_at < ${cutoff}
             LIMIT ${batch})`,
        )
      ).changes,
  );
}

/**
 * One retention step at `now`: delete a batch of delivered or failed deliveries older than the
 * retention, in its own short write transaction. Returns the time the next step is due: at once while batches
 * come back full (a backlog drains one transaction at a time, other writers in between), else
 * after `everyMs`.
 */
export async function pruneStep(db: Db, now: number, retention: RetentionOptions): Promise<number> {
  const removed = await pruneDeliveries(db, now - retention.keepMs, retention.batch);
  return removed >= retention.batch ? now : now + retention.everyMs;
}

/**
 * Deliver the outbox until stopped: a pass every `pollMs` while idle, at once again after a pass
 * that found work. Writes never wait for it; it only reads the outbox and updates its rows. It
 * also keeps the log to its retention: at start and then every `retention.everyMs`, old delivered
 * and failed deliveries are deleted a batch per loop turn until none is left.
 */
export function startDispatcher(db: Db, options: DispatcherOptions = dispatcherOptionsFromEnv(), log: (message: string) => void = console.error): Dispatcher {
  const owner = `${process.pid}.${randomBytes(4).toString("hex")}`;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let pruneAt = 0;
  const loop = async () => {
    if (stopped) return;
    let found = 0;
    try {
      found = await dispatchOnce(db, owner, options);
    } catch (error) {
      log(`webhooks: dispatch pass failed: ${(error as Error).message}`);
    }
    if (stopped) return;
    const now = Date.now();
    if (now >= pruneAt) {
      try {
        pruneAt = await pruneStep(db, now, options.retention);
      } catch (error) {
        pruneAt = now + options.retention.everyMs;
        log(`webhooks: deleting old deliveries failed: ${(error as Error).message}`);
      }
    }
    timer = setTimeout(
      () => {
        running = loop();
      },
      found > 0 || pruneAt <= now ? 0 : options.pollMs,
    );
    timer.unref();
  };
  running = loop();
  return {
    owner,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
