/**
 * The rollups the triggers keep (db/enforcement.ts) against the history they summarise: every
 * figure read from them must equal the same figure computed from the history tables, for every
 * kind of filter, after writes by the services (the scenario) and by the demo's bulk inserts;
 * and the rollups a purge or the migration rebuilds must equal the ones the triggers kept.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { analyticsRollupMigrationSql, rebuildAnalyticsRollupsSql, sessionFigureRollupMigrationSql } from "@/db/enforcement";
import { type Fixture, rows, setup } from "@/test/support/api-helpers";
import { generateDemoData } from "@/server/demo/generate";
import { type AnalyticsOverview, analyticsOverview } from "./overview";
import { catchUpReasonKinds, reasonKindsThrough } from "./rollups";
import type { AnalyticsInput } from "./schemas";
import { DAY_MS, MONDAY, buildScenario } from "@/test/support/analytics-scenario";

const migration = (file: string) => fs.readFileSync(fileURLToPath(new URL(`../../../db/migrations/${file}`, import.meta.url)), "utf8");

describe("migrations 0004 and 0005", () => {
  it("0004 ends with what db/enforcement.ts generates (analyticsRollupMigrationSql)", () => {
    expect(migration("0004_analytics_rollups.sql").endsWith(`--> statement-breakpoint\n${analyticsRollupMigrationSql()}\n`)).toBe(true);
  });

  it("0005 ends with what db/enforcement.ts generates (sessionFigureRollupMigrationSql)", () => {
    expect(migration("0005_session_figure_rollups.sql").endsWith(`--> statement-breakpoint\n${sessionFigureRollupMigrationSql()}\n`)).toBe(true);
  });
});

let f: Fixture;
const NOW = new Date("2026-03-20T12:00:00Z");

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  f = setup();
  await buildScenario(f);
  vi.setSystemTime(NOW);
  await generateDemoData(f.db, { sessions: 30, seed: 5, now: NOW, logsPerSession: 2 });
});
afterAll(() => {
  vi.useRealTimers();
});

/** The figures alone (not the timings, nor the echo of the filters). */
function figures(o: AnalyticsOverview): Omit<AnalyticsOverview, "timings" | "filters"> {
  const { timings: _timings, filters: _filters, ...rest } = o;
  return rest;
}

async function expectSameAsHistory(input: AnalyticsInput): Promise<AnalyticsOverview> {
  const fromRollups = await analyticsOverview(f.db, input);
  const fromHistory = await analyticsOverview(f.db, input, { fromHistory: true });
  expect(figures(fromRollups)).toEqual(figures(fromHistory));
  return fromRollups;
}

describe("figures from the rollups equal the history's", () => {
  const firstWeek = { from: new Date(MONDAY), to: new Date(MONDAY + 7 * DAY_MS - 1) };
  const lastDays = { from: new Date(NOW.getTime() - 10 * DAY_MS - (NOW.getTime() % DAY_MS)) };

  it("has data of every figure to compare", async () => {
    const o = await expectSameAsHistory({});
    expect(o.falseCompletion.blocked).toBeGreaterThan(3);
    expect(o.blockedTime.resets).toBeGreaterThan(1);
    expect(o.blockedTime.resetsPerTask.length).toBeGreaterThan(0);
    expect(o.goalAttempts.goalsSucceeded).toBeGreaterThan(0);
    expect(o.goalAttempts.breakdowns).toBeGreaterThan(0);
    expect(o.completionChecks.topReasons.length).toBeGreaterThan(2);
    expect(o.tokens.tokens).toBeGreaterThan(0);
    expect(o.criteria.sessions).toBeGreaterThan(3);
    expect(o.criteria.topBlocked.length).toBeGreaterThan(0);
    expect(o.criteria.topFailed.length).toBeGreaterThan(0);
    expect(o.unverifiedCompletions.count).toBeGreaterThan(0);
  });

  it.each<[string, AnalyticsInput]>([
    ["by source (services)", { source: "bazinga" }],
    ["by source (demo)", { source: "demo" }],
    ["by agent", { agent: "developer_1" }],
    ["by model", { model: "model-a" }],
    ["in whole days", firstWeek],
    ["from a day on, by week", { ...lastDays, bucket: "week" }],
    ["in whole days, by agent and source", { ...firstWeek, agent: "developer_2", source: "api" }],
  ])("%s", async (_name, input) => {
    await expectSameAsHistory(input);
  });

  it("by a demo model, and by each demo agent", async () => {
    const model = rows<{ model: string }>(f.db, "SELECT model FROM attempts WHERE model IS NOT NULL LIMIT 1")[0]!.model;
    await expectSameAsHistory({ model });
    for (const { actor } of rows<{ actor: string }>(f.db, "SELECT DISTINCT actor FROM task_transitions WHERE move = 'claim' LIMIT 4")) {
      await expectSameAsHistory({ agent: actor });
    }
  });

  it("counts checks written since the reason kinds were last caught up", async () => {
    const through = await reasonKindsThrough(f.db);
    vi.setSystemTime(NOW.getTime() + 60_000);
    await f
      .as("orchestrator")
      .completion.check({ sessionId: "s1" })
      .catch(() => undefined);
    expect(rows<{ n: number }>(f.db, "SELECT max(id) AS n FROM completion_checks")[0]!.n).toBeGreaterThan(through);
    const fromRollups = await analyticsOverview(f.db, {});
    expect(await reasonKindsThrough(f.db)).toBeGreaterThan(through);
    expect(fromRollups.completionChecks).toEqual((await analyticsOverview(f.db, {}, { fromHistory: true })).completionChecks);
  });
});

describe("rebuilding the rollups (migration, purge)", () => {
  const snapshot = () => ({
    rollups: rows(f.db, "SELECT * FROM analytics_rollups WHERE n <> 0 OR total <> 0 ORDER BY figure, day, source, agent, model, k1, k2, k3"),
    reasons: rows(f.db, "SELECT * FROM analytics_reason_kinds ORDER BY day, source, agent, kind"),
  });

  it("gives the rows the triggers kept", async () => {
    await catchUpReasonKinds(f.db);
    const kept = snapshot();
    expect(kept.rollups.length).toBeGreaterThan(100);
    f.db.$client.transaction(() => {
      for (const statement of rebuildAnalyticsRollupsSql()) f.db.$client.exec(statement);
    })();
    await catchUpReasonKinds(f.db);
    expect(snapshot()).toEqual(kept);
  });

  it("after a purge deleted a session's history, counts what is left", async () => {
    const sqlite = f.db.$client;
    const purge = Number(sqlite.prepare("INSERT INTO purges (actor, reason) VALUES ('admin', 'test')").run().lastInsertRowid);
    sqlite.prepare("DELETE FROM sessions WHERE id = 's2'").run();
    sqlite.prepare("UPDATE purges SET finished_at = 1 WHERE id = ?").run(purge);
    expect(rows(f.db, "SELECT * FROM analytics_rollups WHERE source = 'bazinga' AND (n <> 0 OR total <> 0)")).toEqual([]);
    await expectSameAsHistory({});
    await expectSameAsHistory({ agent: "developer_1" });
  });
});
