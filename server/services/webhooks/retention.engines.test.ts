/**
 * The delivery log keeps to its retention: the dispatcher deletes delivered and failed deliveries
 * whose final time (delivered, else last attempt, else created) is older than the retention period,
 * a small batch per write transaction, and never a pending one or a recent one.
 * PROOFGATE_WEBHOOK_LOG_DAYS sets the period; a bad value is refused by name. The deletions on
 * both engines (issue 21).
 */
// flake-risks time: the test's 'now', from which ages of 1, 30 and 40 days are set: days of margin against the dispatcher's own clock
// flake-risks wait: absence check: room for a repeat or a stray write to show; a slow machine can only make it miss one, never fail
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { rawAll, rawRun } from "@/db/query";
import { ACTORS, callerFor } from "@/test/support/api-helpers";
import { type Engine, describeEngines, sharedLedgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";
import { waitFor } from "@/test/support/webhook-receiver";
import { type DispatcherOptions, dispatcherOptionsFromEnv, pruneDeliveries, pruneStep, startDispatcher } from "./dispatcher";
import { DEFAULT_LOG_DAYS, retentionNote, webhookLogDays } from "./retention";

const DAY = 86_400_000;
const env = (vars: Record<string, string> = {}) => vars as NodeJS.ProcessEnv;
const NOW = Date.now();

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const sharedLedger = sharedLedgerFactory();

/** A ledger another handle can open too (so it can see what each transaction committed), with one webhook. */
async function ledger(engine: Engine): Promise<{ db: Db; target: string; webhookId: number }> {
  const { db, target } = await sharedLedger(engine);
  // Unreachable on purpose (.invalid never resolves): nothing here is meant to be delivered (every row is inserted below).
  const { id } = await callerFor(db, ACTORS.admin).admin.createWebhook({ url: "https://receiver.invalid/hook", events: ["task.blocked"] });
  return { db, target, webhookId: id };
}

interface Row {
  status: "pending" | "delivered" | "failed";
  createdAt: number;
  lastAttemptAt?: number | null;
  deliveredAt?: number | null;
  /** Far in the future by default, so a running dispatcher never picks a pending row up. */
  nextAttemptAt?: number;
}

/** Insert deliveries as they would stand after their attempts, in one statement; returns their ids in order. */
async function insert(db: Db, webhookId: number, list: Row[]): Promise<number[]> {
  const values = list.map(
    (row) =>
      sql`(${webhookId}, 1, 'task.blocked', ${row.status}, ${row.lastAttemptAt ? 1 : 0}, ${row.nextAttemptAt ?? NOW + 365 * DAY}, ${row.lastAttemptAt ?? null}, ${row.deliveredAt ?? null}, ${row.createdAt})`,
  );
  const inserted = await rawAll<{ id: number }>(
    db,
    sql`INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, status, attempts, next_attempt_at, last_attempt_at, delivered_at, created_at)
        VALUES ${sql.join(values, sql`, `)} RETURNING id`,
  );
  // Ids grow in insertion order; RETURNING's own order is not promised.
  return inserted.map((r) => Number(r.id)).sort((a, b) => a - b);
}

const ids = async (db: Db) => (await rowsOf<{ id: number }>(db, sql`SELECT id FROM webhook_deliveries ORDER BY id`)).map((r) => Number(r.id));
const count = async (db: Db) => Number((await rowsOf<{ n: number }>(db, sql`SELECT count(*) AS n FROM webhook_deliveries`))[0]!.n);

describeEngines("webhook delivery log retention", (engine) => {
  // PostgreSQL seals a webhook's signing secret under the instance key from the environment (server/auth/secret.ts).
  beforeEach(() => void vi.stubEnv("BETTER_AUTH_SECRET", "retention-test-key-retention-test-key-0123456789"));
  afterEach(() => void vi.unstubAllEnvs());

  it("deletes delivered and failed deliveries whose final time is past the retention, keeps pending and recent ones", async () => {
    const { db, webhookId } = await ledger(engine);
    const cutoff = NOW - 30 * DAY;
    const old = NOW - 40 * DAY;
    const [oldDelivered, oldFailed, failedNeverTried, oldPending, oldPendingTried, deliveredLate, failedLate, recentDelivered, recentFailed, pending] =
      await insert(db, webhookId, [
        { status: "delivered", createdAt: old, lastAttemptAt: old + 1_000, deliveredAt: old + 1_000 },
        { status: "failed", createdAt: old, lastAttemptAt: old + DAY },
        { status: "failed", createdAt: old },
        { status: "pending", createdAt: old },
        { status: "pending", createdAt: old, lastAttemptAt: old + 1_000 },
        // Created before the cutoff but finished after it: counted from the final time, so kept.
        { status: "delivered", createdAt: cutoff - 3_600_000, lastAttemptAt: cutoff + 3_600_000, deliveredAt: cutoff + 3_600_000 },
        { status: "failed", createdAt: cutoff - 3_600_000, lastAttemptAt: cutoff + 3_600_000 },
        { status: "delivered", createdAt: NOW - DAY, lastAttemptAt: NOW - DAY, deliveredAt: NOW - DAY },
        { status: "failed", createdAt: NOW - 2 * DAY, lastAttemptAt: NOW - DAY },
        { status: "pending", createdAt: NOW, nextAttemptAt: NOW },
      ]);
    expect(await pruneDeliveries(db, cutoff, 100)).toBe(3);
    expect(await ids(db)).toEqual([oldPending, oldPendingTried, deliveredLate, failedLate, recentDelivered, recentFailed, pending]);
    expect(await ids(db)).not.toContain(oldDelivered);
    expect(await ids(db)).not.toContain(oldFailed);
    expect(await ids(db)).not.toContain(failedNeverTried);
    // Nothing more to do: a second pass deletes nothing, and pending rows stay however old.
    expect(await pruneDeliveries(db, cutoff, 100)).toBe(0);
    expect(await pruneDeliveries(db, NOW + DAY, 100)).toBe(4);
    expect(await ids(db)).toEqual([oldPending, oldPendingTried, pending]);
  });

  it("deletes a large backlog a batch per write transaction, oldest first, each committed on its own", async () => {
    const { db, target, webhookId } = await ledger(engine);
    const old = NOW - 40 * DAY;
    const backlog = await insert(
      db,
      webhookId,
      Array.from({ length: 1_250 }, (_, i) => ({
        status: i % 3 === 0 ? "failed" : "delivered",
        createdAt: old + i,
        lastAttemptAt: old + i,
        deliveredAt: i % 3 === 0 ? null : old + i,
      })),
    );
    const kept = await insert(db, webhookId, [{ status: "delivered", createdAt: NOW, lastAttemptAt: NOW, deliveredAt: NOW }]);
    const other = await openLedger(target, { migrate: false, poolSize: 1 });
    cleanup.push(() => closeLedger(other));
    const retention = { keepMs: 30 * DAY, everyMs: 300_000, batch: 500 };

    const seen: number[] = [];
    const nextAt: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      nextAt.push(await pruneStep(db, NOW, retention));
      // Each pass committed its own transaction: none is left open, and another connection sees the rows gone.
      if (engine === "sqlite") expect(db.$client.inTransaction).toBe(false);
      seen.push(await count(other));
    }
    expect(seen).toEqual([751, 251, 1]);
    // Full batches ask for the next one at once; the short one ends the sweep until everyMs has passed.
    expect(nextAt).toEqual([NOW, NOW, NOW + 300_000]);
    expect(await ids(db)).toEqual(kept);
    expect(backlog).toHaveLength(1_250);
  });

  it("the dispatcher drains old deliveries by itself, at start and then at most every everyMs", async () => {
    const { db, webhookId } = await ledger(engine);
    const old = NOW - 40 * DAY;
    await insert(
      db,
      webhookId,
      // 650, not a multiple of the batch of 100: the batch that leaves only the two kept rows is the short one that ends
      // the sweep. With 600 the sixth full batch left two rows while the sweep still owed one more (empty) batch, run at
      // once, which could come after the UPDATE below and delete the row this test expects to outlive the sweep.
      Array.from({ length: 650 }, (_, i) => ({ status: "delivered" as const, createdAt: old + i, lastAttemptAt: old + i, deliveredAt: old + i })),
    );
    const keep = await insert(db, webhookId, [
      { status: "pending", createdAt: old },
      { status: "failed", createdAt: NOW - DAY, lastAttemptAt: NOW - 1_000 },
    ]);
    const options: DispatcherOptions = {
      retry: { baseMs: 100, maxMs: 400, giveUpAfterMs: 60_000 },
      timeoutMs: 1_000,
      pollMs: 25,
      leaseMs: 5_000,
      batch: 10,
      retention: { keepMs: 30 * DAY, everyMs: 60_000, batch: 100 },
      allowPrivate: false,
    };
    const dispatcher = startDispatcher(db, options, () => undefined);
    cleanup.push(() => dispatcher.stop());
    await waitFor(async () => (await count(db)) === 2, 5_000, "the 650 old deliveries deleted");
    expect(await ids(db)).toEqual(keep);

    // The sweep is over: a delivery that becomes deletable now (the old pending one, finished long ago) waits for the next sweep, minutes away.
    await rawRun(db, sql`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ${old}, last_attempt_at = ${old} WHERE id = ${keep[0]!}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ids(db)).toEqual(keep);
  });
});

describe("webhook delivery log retention's setting", () => {
  it("reads PROOFGATE_WEBHOOK_LOG_DAYS: 30 days unless set, a bad value refused by name with the rule", () => {
    expect(webhookLogDays(env())).toBe(30);
    expect(dispatcherOptionsFromEnv(env()).retention.keepMs).toBe(30 * DAY);
    expect(dispatcherOptionsFromEnv(env({ PROOFGATE_WEBHOOK_LOG_DAYS: "7" })).retention.keepMs).toBe(7 * DAY);
    expect(dispatcherOptionsFromEnv(env({ PROOFGATE_WEBHOOK_LOG_DAYS: " 90 " })).retention.keepMs).toBe(90 * DAY);
    for (const bad of ["0", "-3", "1.5", "abc", "30d", "1e3", "99999999999999"]) {
      expect(() => dispatcherOptionsFromEnv(env({ PROOFGATE_WEBHOOK_LOG_DAYS: bad })), bad).toThrow(
        `PROOFGATE_WEBHOOK_LOG_DAYS must be a whole number of days, 1 or more (how long delivered and failed webhook deliveries are kept); got "${bad}"`,
      );
    }
  });

  it("a server process with a bad PROOFGATE_WEBHOOK_LOG_DAYS refuses to start, naming it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-webhook-retention-"));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = { ...process.env, PROOFGATE_DB: path.join(dir, "proofgate.db"), PROOFGATE_WEBHOOK_LOG_DAYS: "thirty" };
    delete env.PROOFGATE_WEBHOOKS;
    const child = spawnSync(process.execPath, ["--import", "tsx", "test/support/webhook-dispatcher-process.ts"], {
      cwd: path.resolve(import.meta.dirname, "../../.."),
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.status).not.toBe(0);
    expect(child.stdout).not.toContain("ready");
    expect(child.stderr).toContain("PROOFGATE_WEBHOOK_LOG_DAYS must be a whole number of days, 1 or more");
  });

  it("Settings → Webhooks says the default retention the dispatcher uses", () => {
    const page = fs.readFileSync(path.resolve(import.meta.dirname, "../../../app/(dashboard)/settings/webhooks/webhooks-client.tsx"), "utf8");
    expect(page).toContain(`${retentionNote(DEFAULT_LOG_DAYS)}, unless the server sets PROOFGATE_WEBHOOK_LOG_DAYS.`);
  });
});
