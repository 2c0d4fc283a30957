/**
 * The delivery log keeps to its retention: the dispatcher deletes delivered and failed deliveries
 * whose final time (delivered, else last attempt, else created) is older than the retention period,
 * a small batch per write transaction, and never a pending one or a recent one.
 * PROOFGATE_WEBHOOK_LOG_DAYS sets the period; a bad value is refused by name.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/db/client";
import { ACTORS, callerFor, rows } from "@/test/support/api-helpers";
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

/** A database file (so a second connection can see what each transaction committed) with one webhook. */
async function ledger(): Promise<{ db: Db; file: string; webhookId: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-webhook-retention-"));
  const file = path.join(dir, "proofgate.db");
  const db = openDatabase(file);
  cleanup.push(() => {
    db.$client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // Unreachable on purpose: nothing here is meant to be delivered (every row is inserted below).
  const { id } = await callerFor(db, ACTORS.admin).admin.createWebhook({ url: "http://127.0.0.1:9/hook", events: ["task.blocked"] });
  return { db, file, webhookId: id };
}

interface Row {
  status: "pending" | "delivered" | "failed";
  createdAt: number;
  lastAttemptAt?: number | null;
  deliveredAt?: number | null;
  /** Far in the future by default, so a running dispatcher never picks a pending row up. */
  nextAttemptAt?: number;
}

/** Insert deliveries as they would stand after their attempts; returns their ids in order. */
function insert(db: Db, webhookId: number, list: Row[]): number[] {
  const statement = db.$client.prepare(
    `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, status, attempts, next_attempt_at, last_attempt_at, delivered_at, created_at)
     VALUES (@webhookId, 1, 'task.blocked', @status, @attempts, @nextAttemptAt, @lastAttemptAt, @deliveredAt, @createdAt) RETURNING id`,
  );
  return db.$client.transaction(() =>
    list.map(
      (row) =>
        (
          statement.get({
            webhookId,
            status: row.status,
            attempts: row.lastAttemptAt ? 1 : 0,
            nextAttemptAt: row.nextAttemptAt ?? NOW + 365 * DAY,
            lastAttemptAt: row.lastAttemptAt ?? null,
            deliveredAt: row.deliveredAt ?? null,
            createdAt: row.createdAt,
          }) as { id: number }
        ).id,
    ),
  )();
}

const ids = (db: Db) => rows<{ id: number }>(db, "SELECT id FROM webhook_deliveries ORDER BY id").map((r) => r.id);
const count = (db: Db) => rows<{ n: number }>(db, "SELECT count(*) AS n FROM webhook_deliveries")[0]!.n;

describe("webhook delivery log retention", () => {
  it("deletes delivered and failed deliveries whose final time is past the retention, keeps pending and recent ones", async () => {
    const { db, webhookId } = await ledger();
    const cutoff = NOW - 30 * DAY;
    const old = NOW - 40 * DAY;
    const [oldDelivered, oldFailed, failedNeverTried, oldPending, oldPendingTried, deliveredLate, failedLate, recentDelivered, recentFailed, pending] = insert(
      db,
      webhookId,
      [
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
      ],
    );
    expect(await pruneDeliveries(db, cutoff, 100)).toBe(3);
    expect(ids(db)).toEqual([oldPending, oldPendingTried, deliveredLate, failedLate, recentDelivered, recentFailed, pending]);
    expect(ids(db)).not.toContain(oldDelivered);
    expect(ids(db)).not.toContain(oldFailed);
    expect(ids(db)).not.toContain(failedNeverTried);
    // Nothing more to do: a second pass deletes nothing, and pending rows stay however old.
    expect(await pruneDeliveries(db, cutoff, 100)).toBe(0);
    expect(await pruneDeliveries(db, NOW + DAY, 100)).toBe(4);
    expect(ids(db)).toEqual([oldPending, oldPendingTried, pending]);
  });

  it("deletes a large backlog a batch per write transaction, oldest first, each committed on its own", async () => {
    const { db, file, webhookId } = await ledger();
    const old = NOW - 40 * DAY;
    const backlog = insert(
      db,
      webhookId,
      Array.from({ length: 1_250 }, (_, i) => ({
        status: i % 3 === 0 ? "failed" : "delivered",
        createdAt: old + i,
        lastAttemptAt: old + i,
        deliveredAt: i % 3 === 0 ? null : old + i,
      })),
    );
    const kept = insert(db, webhookId, [{ status: "delivered", createdAt: NOW, lastAttemptAt: NOW, deliveredAt: NOW }]);
    const other = openDatabase(file);
    cleanup.push(() => void other.$client.close());
    const retention = { keepMs: 30 * DAY, everyMs: 300_000, batch: 500 };

    const seen: number[] = [];
    const nextAt: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      nextAt.push(await pruneStep(db, NOW, retention));
      // Each pass committed its own transaction: none is left open, and another connection sees the rows gone.
      expect(db.$client.inTransaction).toBe(false);
      seen.push(count(other));
    }
    expect(seen).toEqual([751, 251, 1]);
    // Full batches ask for the next one at once; the short one ends the sweep until everyMs has passed.
    expect(nextAt).toEqual([NOW, NOW, NOW + 300_000]);
    expect(ids(db)).toEqual(kept);
    expect(backlog).toHaveLength(1_250);
  });

  it("the dispatcher drains old deliveries by itself, at start and then at most every everyMs", async () => {
    const { db, webhookId } = await ledger();
    const old = NOW - 40 * DAY;
    insert(
      db,
      webhookId,
      Array.from({ length: 600 }, (_, i) => ({ status: "delivered" as const, createdAt: old + i, lastAttemptAt: old + i, deliveredAt: old + i })),
    );
    const keep = insert(db, webhookId, [
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
    };
    const dispatcher = startDispatcher(db, options, () => undefined);
    cleanup.push(() => dispatcher.stop());
    await waitFor(() => count(db) === 2, 5_000, "the 600 old deliveries deleted");
    expect(ids(db)).toEqual(keep);

    // The sweep is over: a delivery that becomes deletable now (the old pending one, finished long ago) waits for the next sweep, minutes away.
    db.$client.prepare("UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ?, last_attempt_at = ? WHERE id = ?").run(old, old, keep[0]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ids(db)).toEqual(keep);
  });

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
