/**
 * The demo generator's contract with its callers: the same seed and "now" give the same database,
 * seeds do not collide, and bad options are refused with a ValidationError naming the option.
 */
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { type Db, createMemoryDb } from "@/db/client";
import * as schema from "@/db/schema";
import { ValidationError } from "@/server/domain/errors";
import type { ProgressUpdate } from "@/server/services/progress";
import { type DemoOptions, generateDemoData } from "./generate";

const NOW = new Date("2026-11-21T12:00:00Z");

/** The tables a dashboard reads, in a stable order. */
const LEDGER_TABLES = [
  "sessions",
  "tasks",
  "task_transitions",
  "success_criteria",
  "criterion_updates",
  "completion_checks",
  "goals",
  "attempts",
  "attempt_results",
  "tool_calls",
  "goal_gate_evaluations",
  "orchestration_logs",
  "token_usage",
  "events",
] as const;

async function generated(options: Partial<DemoOptions> & { seed: number }, db: Db = createMemoryDb()): Promise<Db> {
  await generateDemoData(db, { sessions: 30, now: NOW, logsPerSession: 20, ...options });
  return db;
}

function dump(db: Db, tables: readonly string[]): Record<string, unknown[]> {
  return Object.fromEntries(tables.map((t) => [t, db.$client.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()]));
}

/** Every table the schema defines (drizzle's table objects among the barrel's exports). */
function schemaTables(): string[] {
  return Object.values(schema as Record<string, unknown>)
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => getTableName(table))
    .sort();
}

/** A dump with the seed-bearing session ids made neutral, so two seeds' content can be compared. */
function contentOf(db: Db, seed: number): string {
  return JSON.stringify(dump(db, LEDGER_TABLES)).replaceAll(`demo_${seed}_`, "demo_SEED_");
}

async function catchError(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}

describe("generateDemoData: determinism", () => {
  it("gives identical rows in every ledger table for the same seed and now", async () => {
    const first = await generated({ seed: 3 });
    const second = await generated({ seed: 3 });
    const a = dump(first, LEDGER_TABLES);
    expect(a.sessions).toHaveLength(30);
    expect(a.events!.length).toBeGreaterThan(100);
    expect(dump(second, LEDGER_TABLES)).toEqual(a);
  });

  it("gives different data for a different seed, beyond the session ids", async () => {
    expect(contentOf(await generated({ seed: 3 }), 3)).not.toBe(contentOf(await generated({ seed: 4 }), 4));
  });

  it("returns a summary whose row counts match the tables", async () => {
    const db = createMemoryDb();
    const summary = await generateDemoData(db, { sessions: 12, seed: 9, now: NOW, logsPerSession: 10 });
    expect(summary).toMatchObject({ sessions: 12, seed: 9, firstSessionId: "demo_9_00001" });
    for (const [table, n] of Object.entries(summary.rows)) {
      expect(n, table).toBe((db.$client.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);
    }
    expect(summary.rows.sessions).toBe(12);
  });

  it("reports every session generated, then the steps that finish the load, and writes the same rows as without a listener", async () => {
    const progress: ProgressUpdate[] = [];
    const db = createMemoryDb();
    await generateDemoData(db, { seed: 5, sessions: 4, now: NOW, logsPerSession: 20, onProgress: (update) => progress.push({ ...update }) });
    expect(progress).toEqual([
      ...[0, 1, 2, 3, 4].map((done) => ({ phase: "generating", done, total: 4, unit: "sessions" })),
      ...[0, 1, 2].map((done) => ({ phase: "finishing", done, total: 2, unit: "steps" })),
    ]);
    expect(dump(db, LEDGER_TABLES)).toEqual(dump(await generated({ seed: 5, sessions: 4 }), LEDGER_TABLES));
  });

  // Configuration rows are dated by the generator's `now`, not the wall clock.
  it("gives identical rows in every table of the schema, server-wide configuration included", async () => {
    const all = schemaTables();
    expect(all.length).toBeGreaterThan(30);
    const first = dump(await generated({ seed: 3, sessions: 2 }), all);
    const second = dump(await generated({ seed: 3, sessions: 2 }), all);
    expect(second).toEqual(first);
  });

  it("dates the server-wide configuration rows no later than the generator's now", async () => {
    const past = new Date("2024-01-01T00:00:00Z");
    const db = createMemoryDb();
    await generateDemoData(db, { sessions: 1, seed: 1, now: past, logsPerSession: 5 });
    for (const table of ["configuration", "model_config"]) {
      const newest = db.$client.prepare(`SELECT max(updated_at) FROM "${table}"`).pluck().get() as number;
      expect(newest, table).toBeLessThanOrEqual(past.getTime());
    }
  });

  // The generator mixes the seed into 32-bit state, so seeds past 2^31 − 1 would alias smaller ones: refused.
  it("refuses seeds past 2^31 - 1, which would alias smaller seeds", async () => {
    const error = await catchError(async () => generateDemoData(createMemoryDb(), { sessions: 1, seed: 2 ** 32, now: NOW }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe("seed");
    expect(contentOf(await generated({ seed: 2 ** 31 - 1, sessions: 2 }), 2 ** 31 - 1)).not.toBe(contentOf(await generated({ seed: 0, sessions: 2 }), 0));
  });
});

describe("generateDemoData: seeds in one database", () => {
  it("refuses to generate the same seed twice, with a ValidationError on seed, writing nothing", async () => {
    const db = await generated({ seed: 1, sessions: 3 });
    const before = dump(db, LEDGER_TABLES);
    const error = await catchError(async () => generateDemoData(db, { sessions: 3, seed: 1, now: NOW }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe("seed");
    expect((error as ValidationError).message).toMatch(/^seed: .*seed 1/);
    expect(dump(db, LEDGER_TABLES)).toEqual(before);
  });

  it("lets seeds 1 and 2 coexist, each with its own sessions", async () => {
    const db = await generated({ seed: 1, sessions: 4 });
    const summary = await generateDemoData(db, { sessions: 5, seed: 2, now: NOW, logsPerSession: 20 });
    expect(summary.firstSessionId).toBe("demo_2_00001");
    const ids = (db.$client.prepare("SELECT id FROM sessions ORDER BY id").all() as { id: string }[]).map((r) => r.id);
    expect(ids).toEqual([
      "demo_1_00001",
      "demo_1_00002",
      "demo_1_00003",
      "demo_1_00004",
      "demo_2_00001",
      "demo_2_00002",
      "demo_2_00003",
      "demo_2_00004",
      "demo_2_00005",
    ]);
    // Server-wide configuration is seeded once, not once per seed.
    const models = db.$client.prepare("SELECT agent_role, count(*) AS n FROM model_config GROUP BY agent_role HAVING n > 1").all();
    expect(models).toEqual([]);
  });

  it("writes seed 2's sessions exactly as it would into an empty database", async () => {
    const shared = await generated({ seed: 1, sessions: 3 });
    await generated({ seed: 2, sessions: 3 }, shared);
    const alone = await generated({ seed: 2, sessions: 3 });
    // Completion check ids are the database's own: compared as "its latest check" instead.
    const rowsOf = (db: Db) =>
      db.$client
        .prepare(
          `SELECT s.*, (SELECT max(id) FROM completion_checks c WHERE c.session_id = s.id) AS latest_check FROM sessions s WHERE id LIKE 'demo_2_%' ORDER BY id`,
        )
        .all()
        .map((row) => {
          const { checks_stale_through: stale, completion_check_id: rested, latest_check: latest, ...rest } = row as Record<string, unknown>;
          return { ...rest, staleThroughLatest: stale === (latest ?? 0), restsOnLatest: rested === null ? null : rested === latest };
        });
    expect(rowsOf(shared)).toEqual(rowsOf(alone));
  });
});

describe("generateDemoData: input validation", () => {
  it.each([0, -1, 1.5, 100_001, Number.NaN])("refuses sessions = %s with a ValidationError on sessions", async (sessions) => {
    const db = createMemoryDb();
    const error = await catchError(async () => generateDemoData(db, { sessions, now: NOW }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe("sessions");
    expect((error as Error).message).toMatch(/^sessions: /);
    expect(db.$client.prepare("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 0 });
  });

  it.each([-1, 1.5, Number.POSITIVE_INFINITY])("refuses seed = %s with a ValidationError on seed", async (seed) => {
    const db = createMemoryDb();
    const error = await catchError(async () => generateDemoData(db, { sessions: 1, seed, now: NOW }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe("seed");
    expect((error as Error).message).toMatch(/^seed: /);
    expect(db.$client.prepare("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 0 });
  });

  it("accepts the bounds: one session, and seed 0", async () => {
    const db = createMemoryDb();
    expect((await generateDemoData(db, { sessions: 1, seed: 0, now: NOW, logsPerSession: 5 })).firstSessionId).toBe("demo_0_00001");
  });
});
