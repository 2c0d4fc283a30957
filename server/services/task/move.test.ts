/**
 * A task move on SQLite runs its whole transaction in one synchronous stretch when the connection is
 * free (context.ts, writeSync): these check that it still waits for, and is never mixed into,
 * another chain's open transaction; that it nests as a savepoint; and that its refusals keep nothing.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Db, writeTransaction } from "@/db/client";
import { rawRun } from "@/db/query";
import type { ActorName } from "@/test/support/api-helpers";
import { nextTurn, openWrite } from "@/test/support/open-write";
import { ACTORS, PASSED, count, rows, sessionWithTask, setup, tableCounts } from "@/test/support/api-helpers";
import { ConflictError, ForbiddenTransitionError } from "@/server/domain/errors";
import { moveTask } from "./move";
import { loadTaskSync } from "./load";
import { compareAndSetTaskSync } from "./statements";

const T = { sessionId: "s1", key: "t1" };
const by = (db: Db, name: ActorName) => ({ db, actor: ACTORS[name] });
const stored = (db: Db) => rows<{ status: string; version: number }>(db, "SELECT status, version FROM tasks WHERE key = 't1'")[0]!;

async function withTask(): Promise<Db> {
  const f = setup();
  await sessionWithTask(f);
  return f.db;
}

describe("a task move on SQLite", () => {
  it("commits with its transition and event before the call returns when the connection is free", async () => {
    const db = await withTask();
    const moving = moveTask(by(db, "developer"), { ...T, move: "start" });
    expect(db.$client.inTransaction).toBe(false);
    expect(stored(db)).toEqual({ status: "in_progress", version: 2 });
    expect(count(db, "task_transitions", "move = 'start'")).toBe(1);
    expect(count(db, "events", "type = 'task.started'")).toBe(1);
    await expect(moving).resolves.toMatchObject({ status: "in_progress", version: 2 });
  });

  it("waits for another chain's open write instead of running inside it, and is kept when that write rolls back", async () => {
    const db = await withTask();
    const { writing, end } = await openWrite(db, "s2", "rollback");
    const moving = moveTask(by(db, "developer"), { ...T, move: "start" });
    await nextTurn();
    expect(stored(db).status).toBe("pending");
    end();
    await expect(writing).rejects.toThrow("rolled back");
    await expect(moving).resolves.toMatchObject({ status: "in_progress" });
    expect(count(db, "sessions", "id = 's2'")).toBe(0);
    expect(stored(db)).toEqual({ status: "in_progress", version: 2 });
    expect(count(db, "events", "type = 'task.started'")).toBe(1);
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
    expect(verified.status).toBe("fulfilled");
    expect(blocked.status === "rejected" && blocked.reason).toBeInstanceOf(ConflictError);
    expect(stored(db)).toEqual({ status: "verified", version: 3 });
    expect(count(db, "task_transitions", "move IN ('verify', 'block')")).toBe(1);
  });

  it("refuses a move the machine forbids and keeps nothing, leaving the connection free", async () => {
    const db = await withTask();
    const before = tableCounts(db);
    await expect(moveTask(by(db, "verifier"), { ...T, move: "verify", proofpack: PASSED })).rejects.toBeInstanceOf(ForbiddenTransitionError);
    expect(tableCounts(db)).toEqual(before);
    expect(db.$client.inTransaction).toBe(false);
    await expect(moveTask(by(db, "developer"), { ...T, move: "start" })).resolves.toMatchObject({ status: "in_progress" });
  });

  it("inside a write of the same chain is a savepoint: the outer write's rollback takes it back", async () => {
    const db = await withTask();
    const before = tableCounts(db);
    await expect(
      writeTransaction(db, async () => {
        await moveTask(by(db, "developer"), { ...T, move: "start" });
        expect(stored(db).status).toBe("in_progress");
        throw new Error("outer refused");
      }),
    ).rejects.toThrow("outer refused");
    expect(tableCounts(db)).toEqual(before);
    expect(stored(db)).toEqual({ status: "pending", version: 1 });
  });

  it("inside a write of the same chain, a refused move rolls back its own savepoint only", async () => {
    const db = await withTask();
    await writeTransaction(db, async (tx) => {
      await rawRun(tx, sql`INSERT INTO sessions (id) VALUES ('s2')`);
      await expect(moveTask(by(db, "developer"), { ...T, move: "complete" })).rejects.toThrow();
      await moveTask(by(db, "developer"), { ...T, move: "start" });
    });
    expect(count(db, "sessions", "id = 's2'")).toBe(1);
    expect(stored(db)).toEqual({ status: "in_progress", version: 2 });
  });

  it("compare-and-set: a task changed since it was loaded is a CONFLICT and nothing is written", async () => {
    const db = await withTask();
    const task = loadTaskSync(db, "s1", "t1");
    await moveTask(by(db, "developer"), { ...T, move: "start" });
    expect(() => compareAndSetTaskSync(db, task, { status: "claimed", version: task.version + 1 })).toThrow(ConflictError);
    expect(stored(db)).toEqual({ status: "in_progress", version: 2 });
  });
});
