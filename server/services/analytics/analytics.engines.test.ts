/**
 * The analytics on both engines (issue 21): the same varied ledger (test/support/analytics-scenario.ts,
 * plus a few rows at odd milliseconds and in another week) is built through the API on SQLite and on
 * PostgreSQL, and every figure — the overview, and each figure function on its own — must come out
 * the same on both, from the rollups and from the history, under every kind of filter. Runs in the
 * `pg` project; without PostgreSQL it is skipped.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Db, engineOf } from "@/db/client";
import { rawAll, rawGet } from "@/db/query";
import { BLOCKED, type Fixture, PASSED, setup, tokenActor } from "@/test/support/api-helpers";
import { DAY_MS, MINUTE, MONDAY, at, buildScenario } from "@/test/support/analytics-scenario";
import { ledgerFactory, pgAdminUrl as adminUrl } from "@/test/support/engines";
import { completionCheckFigures } from "./completions";
import { bucketSql, sessionModelOf } from "./filters";
import { type AnalyticsOverview, FIGURES, analyticsOverview } from "./overview";
import { catchUpReasonKinds, reasonKindsThrough, rollupsAnswer } from "./rollups";
import { type AnalyticsFilter, type AnalyticsInput, parseAnalyticsInput } from "./schemas";
import { agentTypeOf, bucketStart } from "./shape";

const freshLedger = ledgerFactory();

/** Day 15 (Tuesday 17 March 2026): a week of its own. */
const LATER = 15;
const ms = (day: number, minute: number, extraMs: number) => at(day, minute) + extraMs;

/**
 * Rows the scenario lacks: moves a few hundred milliseconds off the minute (so a wait of 1.999 s is
 * 1 s, not 2, on both engines), a model keyed by a type with digits and underscores, a session that
 * recorded no models, a blocked spell ended by a report, tokens at odd times, criteria whose texts
 * order differently by byte than by a locale, and rejected checks with several reasons.
 */
async function buildExtras(f: Fixture): Promise<void> {
  const time = (t: number) => vi.setSystemTime(t);
  const orch = f.as("orchestrator");
  const dev1 = f.as("developer");
  const dev2 = f.as("developer2");
  const ver = f.as("verifier");
  const engineer = f.by(tokenActor(21, "agent", "senior_software_engineer_12"));
  const x = (key: string) => ({ sessionId: "x1", key });

  time(ms(LATER, 0, 7));
  await orch.session.create({ id: "x1", enforcement: "observe", models: { developer: "model-c", senior_software_engineer: "model-d" } });
  await dev1.criteria.save({
    sessionId: "x1",
    criteria: [{ criterion: "alpha lower" }, { criterion: "Beta upper" }, { criterion: "_under" }, { criterion: "Zeta" }],
  });
  for (const key of ["w1", "w2", "w3", "w4"]) await orch.task.create({ sessionId: "x1", key, title: key });
  time(ms(LATER, 1, 1));
  await dev1.task.start(x("w1"));
  await dev2.task.start(x("w2"));
  await engineer.task.start(x("w3"));
  time(ms(LATER, 2, 500));
  await dev1.task.claim(x("w1"));
  time(ms(LATER, 2, 2499));
  await ver.task.verify({ ...x("w1"), proofpack: PASSED });
  time(ms(LATER, 3, 250));
  await dev2.task.claim(x("w2"));
  time(ms(LATER, 3, 1249));
  await ver.task.block({ ...x("w2"), proofpack: BLOCKED, failures: ["lint - 2 errors"] });
  time(ms(LATER, 4, 999));
  await engineer.task.claim(x("w3"));
  time(ms(LATER, 65, 998));
  await ver.task.block({ ...x("w3"), proofpack: BLOCKED, failures: ["e2e - 1 failing"] });
  time(ms(LATER, 66, 1));
  await orch.task.requestReset({ ...x("w2"), reason: "lint fixed" });
  time(ms(LATER, 70, 333));
  await f.as("lead").task.approveReset({ ...x("w2"), reason: "retry" });
  // w3's spell ends with a reported status, not a reset; w4 is reported blocked and stays so.
  time(ms(LATER, 80, 17));
  await orch.task.report({ ...x("w3"), status: "in_progress" });
  await orch.task.report({ ...x("w4"), status: "blocked" });
  time(ms(LATER, 90, 901));
  for (const [criterion, status] of [
    ["alpha lower", "failed"],
    ["Beta upper", "failed"],
    ["_under", "blocked"],
    ["Zeta", "blocked"],
  ] as const) {
    await dev1.criteria.update({ sessionId: "x1", criterion, status });
  }
  await dev1.log.tokens({ sessionId: "x1", agentType: "developer", agentId: "developer_1", tokens: 123, model: "model-c" });
  await engineer.log.tokens({ sessionId: "x1", agentType: "senior_software_engineer", agentId: "senior_software_engineer_12", tokens: 77 });
  time(ms(LATER, 100, 450));
  await orch.completion.check({ sessionId: "x1" });
  time(ms(LATER + 1, 5, 5));
  await orch.completion.check({ sessionId: "x1" });

  // A session with no models, the day after, with a claim judged 59.999 s later.
  time(ms(LATER + 1, 0, 0));
  await orch.session.create({ id: "x2", source: "bazinga" });
  await orch.task.create({ sessionId: "x2", key: "y1", title: "y1" });
  await dev2.task.start({ sessionId: "x2", key: "y1" });
  time(ms(LATER + 1, 10, 1));
  await dev2.task.claim({ sessionId: "x2", key: "y1" });
  time(ms(LATER + 1, 11, 0));
  await ver.task.verify({ sessionId: "x2", key: "y1", proofpack: PASSED });
}

/** The inputs compared: none, whole days, a range cutting days, each filter, weeks, and mixes. */
const INPUTS: [string, AnalyticsInput][] = [
  ["no filter", {}],
  ["whole days (a week)", { from: new Date(MONDAY), to: new Date(MONDAY + 7 * DAY_MS - 1) }],
  ["whole days, from a day on", { from: MONDAY + 8 * DAY_MS }],
  ["a range cutting days", { from: at(0, 25), to: ms(LATER, 3, 250) }],
  ["source api", { source: "api" }],
  ["source bazinga", { source: "bazinga" }],
  ["source shots-on-goal", { source: "shots-on-goal" }],
  ["agent developer_1", { agent: "developer_1" }],
  ["agent developer_2", { agent: "developer_2" }],
  ["agent with digits", { agent: "senior_software_engineer_12" }],
  ["agent lead", { agent: "lead@example.com" }],
  ["model model-a", { model: "model-a" }],
  ["model model-d", { model: "model-d" }],
  ["model model-y (attempts)", { model: "model-y" }],
  ["bucket day", { bucket: "day" }],
  ["bucket week", { bucket: "week" }],
  ["week, whole days, source and agent", { bucket: "week", from: MONDAY, to: MONDAY + 21 * DAY_MS - 1, source: "api", agent: "developer_2" }],
  ["week, cutting days, model", { bucket: "week", from: at(0, 11), to: at(LATER, 3), model: "model-a" }],
];

function withoutTimings(o: AnalyticsOverview): Omit<AnalyticsOverview, "timings"> {
  const { timings: _timings, ...rest } = o;
  return rest;
}

const filterOf = (input: AnalyticsInput, fromHistory: boolean): AnalyticsFilter => ({ ...parseAnalyticsInput(input), ...(fromHistory && { fromHistory }) });

describe.skipIf(!adminUrl)("the analytics answer alike on SQLite and PostgreSQL", () => {
  let sqlite: Fixture;
  let postgres: Fixture;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    sqlite = setup(await freshLedger("sqlite"));
    postgres = setup(await freshLedger("postgres"));
    for (const f of [sqlite, postgres]) {
      await buildScenario(f);
      await buildExtras(f);
    }
  }, 120_000);
  afterAll(async () => {
    vi.useRealTimers();
  });

  it("runs on the engines asked for, with the same history on both", async () => {
    expect(engineOf(sqlite.db)).toBe("sqlite");
    expect(engineOf(postgres.db)).toBe("postgres");
    const counts = async (db: Db) =>
      rawGet<Record<string, number>>(
        db,
        sql`SELECT (SELECT count(*) FROM task_transitions) AS transitions, (SELECT count(*) FROM completion_checks) AS checks,
          (SELECT count(*) FROM token_usage) AS tokens, (SELECT count(*) FROM attempts) AS attempts, (SELECT count(*) FROM events) AS events`,
      );
    const onSqlite = await counts(sqlite.db);
    expect(await counts(postgres.db)).toEqual(onSqlite);
    expect(onSqlite.transitions).toBeGreaterThan(50);
  });

  it("classifies the same rejection reasons into analytics_reason_kinds", async () => {
    const kinds = async (db: Db) => {
      while (await catchUpReasonKinds(db, 1));
      return rawAll(db, sql`SELECT day, source, agent, kind, checks, example FROM analytics_reason_kinds ORDER BY day, source, agent, kind`);
    };
    const onSqlite = await kinds(sqlite.db);
    expect(onSqlite.length).toBeGreaterThan(3);
    expect(await kinds(postgres.db)).toEqual(onSqlite);
    // Caught up again with nothing new: the same rows, no conflict left unhandled.
    expect(await kinds(postgres.db)).toEqual(onSqlite);
    expect(await reasonKindsThrough(postgres.db)).toBe(await reasonKindsThrough(sqlite.db));
  });

  describe.each(INPUTS)("%s", (_name, input) => {
    it("the overview, from the rollups and from the history", async () => {
      for (const fromHistory of [false, true]) {
        const onSqlite = withoutTimings(await analyticsOverview(sqlite.db, input, { fromHistory }));
        const onPostgres = withoutTimings(await analyticsOverview(postgres.db, input, { fromHistory }));
        expect(onPostgres, fromHistory ? "from the history" : "from the rollups").toEqual(onSqlite);
      }
    });

    it("each figure function on its own", async () => {
      for (const fromHistory of [false, true]) {
        const f = filterOf(input, fromHistory);
        for (const [name, figure] of Object.entries(FIGURES)) {
          const onSqlite = await figure(sqlite.db, f, async () => {});
          expect(await figure(postgres.db, f, async () => {}), `${name}${fromHistory ? " (history)" : ""}`).toEqual(onSqlite);
        }
      }
    });

    it("on PostgreSQL too, the rollups give what the history gives", async ({ skip }) => {
      if (!rollupsAnswer(parseAnalyticsInput(input))) skip("the rollups do not answer a range that cuts days");
      const { filters: _r, ...fromRollups } = withoutTimings(await analyticsOverview(postgres.db, input));
      const { filters: _h, ...fromHistory } = withoutTimings(await analyticsOverview(postgres.db, input, { fromHistory: true }));
      expect(fromRollups).toEqual(fromHistory);
    });
  });

  it("has something in every figure to compare", async () => {
    const o = await analyticsOverview(postgres.db);
    expect(o.criteria.topBlocked.length).toBeGreaterThan(1);
    expect(o.criteria.topFailed.length).toBeGreaterThan(1);
    expect(o.falseCompletion.blocked).toBeGreaterThan(3);
    expect(o.verificationLatency.all.count).toBeGreaterThan(5);
    expect(o.blockedTime.resets).toBeGreaterThan(2);
    expect(o.blockedTime.open).toBeGreaterThan(2);
    expect(o.unverifiedCompletions.count).toBeGreaterThan(0);
    expect(o.completionChecks.topReasons.length).toBeGreaterThan(2);
    expect(o.goalAttempts.goalsSucceeded).toBeGreaterThan(0);
    expect(o.goalAttempts.breakdowns).toBeGreaterThan(0);
    expect(o.tokens.byAgentType.length).toBeGreaterThan(3);
    expect(o.runtimeStops.held).toBeGreaterThan(0);
    expect(o.falseCompletion.byModel.map((m) => m.model)).toEqual(expect.arrayContaining(["model-d", null]));
  });

  it("counts checks written since the reason kinds were caught up alike (rollups plus the newest history)", async () => {
    for (const f of [sqlite, postgres]) {
      vi.setSystemTime(ms(LATER + 2, 0, 321));
      await f.as("orchestrator").completion.check({ sessionId: "x1" });
    }
    const f = filterOf({}, false);
    const onSqlite = await completionCheckFigures(sqlite.db, f);
    expect(onSqlite.total).toBe((await completionCheckFigures(sqlite.db, filterOf({}, true))).total);
    expect(await completionCheckFigures(postgres.db, f)).toEqual(onSqlite);
    expect(await completionCheckFigures(postgres.db, f)).toEqual(await completionCheckFigures(postgres.db, filterOf({}, true)));
  });

  it("bucketSql computes on PostgreSQL what bucketStart computes, past 32 bits", async () => {
    const db = postgres.db;
    for (const value of [0, 1, DAY_MS - 1, DAY_MS, MONDAY, at(3, 17) + 999, 2 ** 31, 2 ** 42 + 12345]) {
      for (const bucket of ["day", "week"] as const) {
        const row = await rawGet<{ b: number }>(db, sql`SELECT ${bucketSql(sql`${value}`, bucket)} AS b`);
        expect(row?.b, `${value} by ${bucket}`).toBe(bucketStart(value, bucket));
      }
    }
  });

  it("sessionModelOf finds the model by the label's type on PostgreSQL, and NULL without one", async () => {
    const db = postgres.db;
    const labels = ["developer_1", "developer_12", "senior_software_engineer_1", "pm", "qa_expert", "agent2", "lead@example.com", 'odd"label_3'];
    const models = JSON.stringify(Object.fromEntries(labels.map((label) => [agentTypeOf(label), `model of ${agentTypeOf(label)}`])));
    for (const label of labels) {
      const row = await rawGet<{ model: string | null }>(db, sql`SELECT ${sessionModelOf(db, sql`${models}`, sql`${label}`)} AS model`);
      expect(row?.model, label).toBe(`model of ${agentTypeOf(label)}`);
    }
    expect((await rawGet<{ m: unknown }>(db, sql`SELECT ${sessionModelOf(db, sql`${'{"developer":"x"}'}`, sql`${"qa_expert_1"}`)} AS m`))?.m).toBeNull();
    expect((await rawGet<{ m: unknown }>(db, sql`SELECT ${sessionModelOf(db, sql`NULL`, sql`${"developer_1"}`)} AS m`))?.m).toBeNull();
  });

  it("stores the same times on both engines, some off the minute", async () => {
    const times = async (db: Db) => rawAll<{ at: number }>(db, sql`SELECT at FROM task_transitions ORDER BY id`);
    const onSqlite = await times(sqlite.db);
    expect(await times(postgres.db)).toEqual(onSqlite);
    expect(onSqlite.some(({ at: t }) => t % MINUTE !== 0)).toBe(true);
  });
});
