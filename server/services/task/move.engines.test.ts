/**
 * A task move, on both engines (issue 21): every move from every status allowed or refused as the
 * machine says, never by the claimant, a CONFLICT for the loser of two moves at one version, and
 * refusals that keep nothing. A move waits for another chain's open write rather than running
 * inside it, and nests as a savepoint inside a write of its own chain. On SQLite a move runs its
 * whole transaction in one synchronous stretch when the connection is free (context.ts, writeSync).
 */
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { type Db, engineOf, writeTransaction } from "@/db/client";
import { rawRun } from "@/db/query";
import type { ActorName } from "@/test/support/api-helpers";
import { nextTurn, openWrite } from "@/test/support/open-write";
import { ACTORS, BLOCKED, PASSED, sessionWithTask, setup } from "@/test/support/api-helpers";
import { describeEngines, ledgerFactory, onThrowawayCopy } from "@/test/support/engines";
import { countOf, rowsOf, tableCountsOf } from "@/test/support/rows";
import { ConflictError, ForbiddenTransitionError } from "@/server/domain/errors";
import type { TaskMove } from "@/server/domain/task-machine";
import { moveTask } from "./move";
import { loadTask } from "./load";
import { compareAndSetTask } from "./statements";

const freshLedger = ledgerFactory();

const T = { sessionId: "s1", key: "t1" };
const by = (db: Db, name: ActorName) => ({ db, actor: ACTORS[name] });

/**
 * The task as stored. On SQLite read straight from the connection, synchronously: a read through
 * the ledger would wait for another chain's open write, which the tests below hold open.
 */
async function stored(db: Db): Promise<{ status: string; version: number }> {
  if (engineOf(db) === "sqlite") return db.$client.prepare("SELECT status, version FROM tasks WHERE key = 't1'").get() as never;
  return (await rowsOf<{ status: string; version: number }>(db, sql`SELECT status, version FROM tasks WHERE key = 't1'`))[0]!;
}

/**
 * The moves allowed from each status (DESIGN.md's task machine), as the admin — who is never the
 * claimant here. A reset can be declined only once requested, and requested only once.
 */
const ALLOWED: Record<string, TaskMove[]> = {
  pending: ["start", "claim"],
  in_progress: ["claim"],
  claimed: ["verify", "block"],
  verified: ["complete"],
  blocked: ["request_reset", "approve_reset"],
  reset_requested: ["approve_reset", "decline_reset"],
  completed: [],
};
const MOVES: TaskMove[] = ["start", "claim", "verify", "block", "complete", "request_reset", "approve_reset", "decline_reset"];
const INPUT: Partial<Record<TaskMove, object>> = {
  verify: { proofpack: PASSED },
  block: { failures: ["flaky"], proofpack: BLOCKED },
  request_reset: { reason: "fixed" },
  approve_reset: { reason: "ok" },
  decline_reset: { reason: "no" },
};

describeEngines("a task move", (engine) => {
  async function withTask(): Promise<Db> {
    const f = setup(await freshLedger(engine));
    await sessionWithTask(f);
    return f.db;
  }

  it("makes every move the machine allows from each status and refuses every other, writing nothing then", async () => {
    const db = await withTask();
    // One task per status, walked there by the developer (the claimant), the verifier and the orchestrator.
    const walk: Record<string, [ActorName, TaskMove][]> = {
      pending: [],
      in_progress: [["developer", "start"]],
      claimed: [["developer", "claim"]],
      verified: [
        ["developer", "claim"],
        ["verifier", "verify"],
      ],
      blocked: [
        ["developer", "claim"],
        ["verifier", "block"],
      ],
      reset_requested: [
        ["developer", "claim"],
        ["verifier", "block"],
        ["developer", "request_reset"],
      ],
      completed: [
        ["developer", "claim"],
        ["verifier", "verify"],
        ["orchestrator", "complete"],
      ],
    };
    const f = setup(db);
    for (const [status, steps] of Object.entries(walk)) {
      await f.as("orchestrator").task.create({ sessionId: "s1", key: status, title: status });
      for (const [actor, move] of steps) await moveTask(by(db, actor), { sessionId: "s1", key: status, move, ...INPUT[move] });
    }
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const status of Object.keys(walk)) {
      for (const move of MOVES) {
        expected.push(`${status} ${move} ${ALLOWED[status]!.includes(move) ? "allowed" : "refused"}`);
        outcomes.push(
          await onThrowawayCopy(db, async (copy) => {
            const before = await tableCountsOf(copy);
            const ref = { sessionId: "s1", key: status };
            try {
              await moveTask(by(copy, "admin"), { ...ref, move, ...INPUT[move] });
              expect(await countOf(copy, "task_transitions"), `${status} ${move} recorded`).toBe(before.task_transitions! + 1);
              return `${status} ${move} allowed`;
            } catch (error) {
              expect(error, `${status} ${move}`).toBeInstanceOf(ForbiddenTransitionError);
              expect(await tableCountsOf(copy), `${status} ${move} wrote nothing`).toEqual(before);
              return `${status} ${move} refused`;
            }
          }),
        );
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it("never lets the claimant verify or block their own claim, as an agent label or as the same principal", async () => {
    const db = await withTask();
    await moveTask(by(db, "admin"), { ...T, move: "claim" });
    const before = await tableCountsOf(db);
    for (const move of ["verify", "block"] as const) {
      await expect(moveTask(by(db, "admin"), { ...T, move, ...INPUT[move] })).rejects.toMatchObject({ rule: `task.claimant_cannot_${move}` });
      // Another principal under the claimant's agent label is the claimant too.
      const sameLabel = { ...ACTORS.verifier, label: "admin@example.com" };
      await expect(moveTask({ db, actor: sameLabel }, { ...T, move, ...INPUT[move] })).rejects.toMatchObject({ rule: `task.claimant_cannot_${move}` });
    }
    expect(await tableCountsOf(db)).toEqual(before);
    expect(await stored(db)).toEqual({ status: "claimed", version: 2 });
  });

  // SQLite only: the synchronous stretch (writeTransactionSync) is how a move runs on SQLite; PostgreSQL awaits each statement.
  it.runIf(engine === "sqlite")("commits with its transition and event before the call returns when the connection is free", async () => {
    const db = await withTask();
    const moving = moveTask(by(db, "developer"), { ...T, move: "start" });
    expect(db.$client.inTransaction).toBe(false);
    expect(await stored(db)).toEqual({ status: "in_progress", version: 2 });
    expect(await countOf(db, "task_transitions", sql`move = 'start'`)).toBe(1);
    expect(await countOf(db, "events", sql`type = 'task.started'`)).toBe(1);
    await expect(moving).resolves.toMatchObject({ status: "in_progress", version: 2 });
  });

  it("waits for another chain's open write instead of running inside it, and is kept when that write rolls back", async () => {
    const db = await withTask();
    const { writing, end } = await openWrite(db, "s2", "rollback");
    const moving = moveTask(by(db, "developer"), { ...T, move: "start" });
    await nextTurn();
    expect((await stored(db)).status).toBe("pending");
    end();
    await expect(writing).rejects.toThrow("rolled back");
    await expect(moving).resolves.toMatchObject({ status: "in_progress" });
    expect(await countOf(db, "sessions", sql`id = 's2'`)).toBe(0);
    expect(await stored(db)).toEqual({ status: "in_progress", version: 2 });
    expect(await countOf(db, "events", sql`type = 'task.started'`)).toBe(1);
  });

  it("lets exactly one of two judgements at one version, queued behind an open write, win; the other gets a CONFLICT", async () => {
    const db = await withTask();
    await moveTask(by(db, "developer"), { ...T, move: "claim" });
    const { writing, end } = await openWrite(db, "s2", "commit");
    const judged = Promise.allSettled([
      moveTask(by(db, "verifier"), { ...T, move: "verify", proofpack: PASSED, expectedVersion: 2 }),
      moveTask(by(db, "verifier2"), { ...T, move: "block", failures: ["flaky"], expectedVersion: 2 }),
    ]);
    end();
    await writing;
    const [verified, blocked] = await judged;
    // Which of the two takes the write first is the engine's: SQLite queues them in order, PostgreSQL's pool need not.
    const winner = engine === "sqlite" ? verified : [verified, blocked].find((s) => s.status === "fulfilled")!;
    expect(winner.status).toBe("fulfilled");
    const loser = winner === verified ? blocked : verified;
    expect(loser.status === "rejected" && loser.reason).toBeInstanceOf(ConflictError);
    expect(await stored(db)).toEqual({ status: winner === verified ? "verified" : "blocked", version: 3 });
    expect(await countOf(db, "task_transitions", sql`move IN ('verify', 'block')`)).toBe(1);
  });

  it("of two moves racing on one version with nothing in the way, exactly one wins and the other is a CONFLICT that writes nothing", async () => {
    const db = await withTask();
    await moveTask(by(db, "developer"), { ...T, move: "claim" });
    const settled = await Promise.allSettled([
      moveTask(by(db, "verifier"), { ...T, move: "verify", proofpack: PASSED, expectedVersion: 2 }),
      moveTask(by(db, "verifier2"), { ...T, move: "block", failures: ["flaky"], expectedVersion: 2 }),
    ]);
    expect(settled.map((s) => s.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = settled.find((s) => s.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ConflictError);
    expect((await stored(db)).version).toBe(3);
    expect(await countOf(db, "task_transitions", sql`move IN ('verify', 'block')`)).toBe(1);
    expect(await countOf(db, "events", sql`type IN ('task.verified', 'task.blocked')`)).toBe(1);
  });

  it("refuses a move the machine forbids and keeps nothing, leaving the connection free", async () => {
    const db = await withTask();
    const before = await tableCountsOf(db);
    await expect(moveTask(by(db, "verifier"), { ...T, move: "verify", proofpack: PASSED })).rejects.toBeInstanceOf(ForbiddenTransitionError);
    expect(await tableCountsOf(db)).toEqual(before);
    if (engine === "sqlite") expect(db.$client.inTransaction).toBe(false);
    await expect(moveTask(by(db, "developer"), { ...T, move: "start" })).resolves.toMatchObject({ status: "in_progress" });
  });

  it("inside a write of the same chain is a savepoint: the outer write's rollback takes it back", async () => {
    const db = await withTask();
    const before = await tableCountsOf(db);
    await expect(
      writeTransaction(db, async () => {
        await moveTask(by(db, "developer"), { ...T, move: "start" });
        expect((await rowsOf<{ status: string }>(db, sql`SELECT status FROM tasks WHERE key = 't1'`))[0]!.status).toBe("in_progress");
        throw new Error("outer refused");
      }),
    ).rejects.toThrow("outer refused");
    expect(await tableCountsOf(db)).toEqual(before);
    expect(await stored(db)).toEqual({ status: "pending", version: 1 });
  });

  it("inside a write of the same chain, a refused move rolls back its own savepoint only", async () => {
    const db = await withTask();
    await writeTransaction(db, async (tx) => {
      await rawRun(tx, sql`INSERT INTO sessions (id) VALUES ('s2')`);
      await expect(moveTask(by(db, "developer"), { ...T, move: "complete" })).rejects.toThrow();
      await moveTask(by(db, "developer"), { ...T, move: "start" });
    });
    expect(await countOf(db, "sessions", sql`id = 's2'`)).toBe(1);
    expect(await stored(db)).toEqual({ status: "in_progress", version: 2 });
  });

  it("compare-and-set: a task changed since it was loaded is a CONFLICT and nothing is written", async () => {
    const db = await withTask();
    const task = await loadTask(db, "s1", "t1");
    await moveTask(by(db, "developer"), { ...T, move: "start" });
    await expect(compareAndSetTask(db, task, { status: "claimed", version: task.version + 1 })).rejects.toBeInstanceOf(ConflictError);
    expect(await stored(db)).toEqual({ status: "in_progress", version: 2 });
  });
});
