/**
 * analytics.overview through the API on the hand-built ledger of test/support/analytics-scenario.ts. Every expected
 * number below is worked out by hand from the scenario's table; the comments show the working.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ACTORS, type Fixture, expectBadRequest, refusal, setup } from "@/test/support/api-helpers";
import type { AnalyticsOverview } from "./overview";
import type { AnalyticsInput } from "./schemas";
import { DAY_MS, MINUTE, MONDAY, at, buildScenario } from "@/test/support/analytics-scenario";

let f: Fixture;
const overview = (input: AnalyticsInput = {}) => f.as("viewer").analytics.overview(input);

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  f = setup();
  await buildScenario(f);
});
afterAll(() => {
  vi.useRealTimers();
});

const min = (n: number) => n * MINUTE;
const day = (n: number) => MONDAY + n * DAY_MS;

describe("analytics.overview, no filters", () => {
  let o: AnalyticsOverview;
  beforeAll(async () => {
    o = await overview();
  });

  it("criteria completion rate per session: s1 1/2, s2 0/2 (the verifier's 'failed' wins over the claim), s3 2/3, s4 1/1", () => {
    expect(o.criteria).toMatchObject({ sessions: 4, required: 8, met: 4, overallRate: 0.5 });
    expect(o.criteria.meanSessionRate).toBeCloseTo((1 / 2 + 0 + 2 / 3 + 1) / 4, 12);
    const bins = Object.fromEntries(o.criteria.distribution.filter((b) => b.sessions > 0).map((b) => [b.label, b.sessions]));
    expect(bins).toEqual({ "0–9%": 1, "50–59%": 1, "60–69%": 1, "100%": 1 });
    expect(o.criteria.distribution).toHaveLength(11);
  });

  it("criteria rate over time, by the session's start day, with the empty days between filled", () => {
    const points = o.criteria.series;
    expect(points.map((p) => p.bucket)).toEqual(Array.from({ length: 9 }, (_, i) => day(i)));
    expect(points[0]).toEqual({ bucket: day(0), sessions: 1, required: 2, met: 1, meanSessionRate: 0.5, overallRate: 0.5 });
    expect(points[1]).toEqual({ bucket: day(1), sessions: 1, required: 2, met: 0, meanSessionRate: 0, overallRate: 0 });
    expect(points[4]).toEqual({ bucket: day(4), sessions: 0, required: 0, met: 0, meanSessionRate: null, overallRate: null });
    // s3 (2/3) and s4 (1/1) both started on day 8: 3 of 4 required met, mean of the two rates.
    expect(points[8]).toMatchObject({ bucket: day(8), sessions: 2, required: 4, met: 3, overallRate: 0.75 });
    expect(points[8]!.meanSessionRate).toBeCloseTo((2 / 3 + 1) / 2, 12);
  });

  it("most common blocked and failed criteria, counting the verifier's finding", () => {
    // Failed: Coverage in s1 and s3; All tests passing in s2 (PM said met, the verifier found failed).
    expect(o.criteria.topFailed).toEqual([
      { criterion: "Coverage >70%", count: 2 },
      { criterion: "All tests passing", count: 1 },
    ]);
    expect(o.criteria.topBlocked).toEqual([{ criterion: "Coverage >70%", count: 1 }]);
  });

  it("false-completion rate: 8 claims, 4 later blocked (u3's reported claim is no claim)", () => {
    const fc = o.falseCompletion;
    expect(fc).toMatchObject({ claims: 8, blocked: 4, rate: 0.5 });
    // developer_1: t1 ok, t3 blocked, u1 blocked, v1 ok; developer_2: t2 blocked, t2 again ok, v2 blocked; sse_1: t4 ok.
    expect(fc.byAgent).toEqual([
      { agent: "developer_1", claims: 4, blocked: 2, rate: 0.5 },
      { agent: "developer_2", claims: 3, blocked: 2, rate: 2 / 3 },
      { agent: "senior_software_engineer_1", claims: 1, blocked: 0, rate: 0 },
    ]);
    // Model from sessions.models[agent type]: s1 and s3 say model-a, s2 model-b; no session names a senior engineer's model.
    expect(fc.byModel).toEqual([
      { model: "model-a", claims: 6, blocked: 3, rate: 0.5 },
      { model: "model-b", claims: 1, blocked: 1, rate: 1 },
      { model: null, claims: 1, blocked: 0, rate: 0 },
    ]);
  });

  it("false-completion over time, by the claim's day", () => {
    const series = o.falseCompletion.series;
    expect(series).toHaveLength(9);
    expect(series[0]).toEqual({ bucket: day(0), claims: 5, blocked: 2, rate: 0.4 });
    expect(series[1]).toEqual({ bucket: day(1), claims: 1, blocked: 1, rate: 1 });
    expect(series[2]).toEqual({ bucket: day(2), claims: 0, blocked: 0, rate: null });
    expect(series[8]).toEqual({ bucket: day(8), claims: 2, blocked: 1, rate: 0.5 });
  });

  it("verification latency percentiles (nearest rank)", () => {
    // Claim → judgment: verify 15, 40, 20, 5; block 30, 10, 60, 10 (minutes).
    // All sorted 5 10 10 15 20 30 40 60: p50 = 4th = 15, p90 = p99 = 8th = 60.
    expect(o.verificationLatency.all).toEqual({ count: 8, p50: min(15), p90: min(60), p99: min(60) });
    expect(o.verificationLatency.verified).toEqual({ count: 4, p50: min(15), p90: min(40), p99: min(40) });
    expect(o.verificationLatency.blocked).toEqual({ count: 4, p50: min(10), p90: min(60), p99: min(60) });
  });

  it("time spent blocked and resets: t2 blocked 60 min, u1 30 min; t3, u3 and v2 still blocked", () => {
    expect(o.blockedTime).toEqual({
      resolved: { count: 2, p50: min(30), p90: min(60), p99: min(60), totalMs: min(90) },
      open: 3,
      resets: 2,
      tasksReset: 2,
      resetsPerTask: [{ resets: 1, tasks: 2 }],
    });
  });

  it("completions with no verification record, by source", () => {
    expect(o.unverifiedCompletions.count).toBe(2);
    expect(o.unverifiedCompletions.bySource).toEqual([
      { source: "api", count: 0 },
      { source: "demo", count: 0 },
      { source: "bazinga", count: 2 },
      { source: "shots-on-goal", count: 0 },
    ]);
  });

  it("completion checks accepted vs rejected and the top rejection reasons, each check counted once per kind", () => {
    const cc = o.completionChecks;
    expect(cc).toMatchObject({ total: 4, accepted: 1, rejected: 3, acceptanceRate: 0.25 });
    expect(cc.series.map((p) => [p.bucket, p.accepted, p.rejected])).toEqual([
      [day(0), 0, 1],
      [day(1), 0, 1],
      ...[2, 3, 4, 5, 6, 7].map((d) => [day(d), 0, 0]),
      [day(8), 1, 1],
    ]);
    expect(cc.topReasons.map((r) => [r.reason, r.checks])).toEqual([
      ["Not every required criterion met", 3],
      ["Tasks blocked", 3],
      ["Criterion failed", 2],
      ["Criterion blocked without an external blocker", 1],
      ["Criterion claimed but the verifier disagreed", 1],
      ["Tasks completed without verification", 1],
      ["Tasks verified", 1],
    ]);
    expect(cc.topReasons[0]!.example).toMatch(/^Only \d\/\d criteria met$/);
  });

  it("goal attempts: success rate by attempt number and model, attempts per goal, outcomes", () => {
    const ga = o.goalAttempts;
    // G1: x error, y success; G2: x timeout, x tool_limit, y completed (+ a breakdown); G3: y success; G4: x running.
    expect(ga).toMatchObject({ attempts: 7, successes: 2, rate: 2 / 7, goals: 4, goalsSucceeded: 2, breakdowns: 1 });
    expect(ga.byAttemptNumber).toEqual([
      { attemptNumber: 1, attempts: 4, successes: 1, rate: 0.25 },
      { attemptNumber: 2, attempts: 2, successes: 1, rate: 0.5 },
      { attemptNumber: 3, attempts: 1, successes: 0, rate: 0 },
    ]);
    expect(ga.byModel).toEqual([
      { model: "model-x", attempts: 4, successes: 0, rate: 0 },
      { model: "model-y", attempts: 3, successes: 2, rate: 2 / 3 },
    ]);
    expect(ga.outcomes).toEqual([
      { outcome: "success", count: 2 },
      { outcome: "error", count: 1 },
      { outcome: "timeout", count: 1 },
      { outcome: "tool_limit", count: 1 },
      { outcome: "completed", count: 1 },
      { outcome: "running", count: 1 },
    ]);
    expect(ga.attemptsPerGoal).toEqual([
      { attempts: 1, goals: 2 },
      { attempts: 2, goals: 1 },
      { attempts: 3, goals: 1 },
    ]);
  });

  it("token usage by agent type over time", () => {
    const t = o.tokens;
    expect(t.tokens).toBe(4500);
    expect(t.byAgentType).toEqual([
      { agentType: "developer", tokens: 3700 },
      { agentType: "pm", tokens: 500 },
      { agentType: "qa_expert", tokens: 300 },
    ]);
    expect(t.series[0]).toEqual({ bucket: day(0), tokens: 1500, byAgentType: { developer: 1000, pm: 500 } });
    expect(t.series[1]).toEqual({ bucket: day(1), tokens: 2000, byAgentType: { developer: 2000 } });
    expect(t.series[8]).toEqual({ bucket: day(8), tokens: 1000, byAgentType: { developer: 700, qa_expert: 300 } });
  });

  it("stops held and stopped with the gate rejected: s1 held twice then through (cap 2), s2 held once then through (cap 1)", () => {
    expect(o.runtimeStops).toEqual({
      held: 3,
      unverified: 2,
      sessionsUnverified: 2,
      series: [
        { bucket: day(0), held: 2, unverified: 1 },
        { bucket: day(1), held: 1, unverified: 1 },
      ],
    });
  });

  it("names no ignored filter when none is given, and times each figure", () => {
    expect(o.ignoredFilters).toEqual({});
    expect(Object.keys(o.timings).sort()).toEqual(
      Object.keys(o)
        .filter((k) => !["filters", "ignoredFilters", "timings"].includes(k))
        .sort(),
    );
  });
});

describe("analytics.overview, each filter changes the figures", () => {
  it("source = bazinga: only s2", async () => {
    const o = await overview({ source: "bazinga" });
    expect(o.criteria).toMatchObject({ sessions: 1, required: 2, met: 0 });
    expect(o.criteria.topFailed).toEqual([{ criterion: "All tests passing", count: 1 }]);
    expect(o.falseCompletion).toMatchObject({ claims: 1, blocked: 1, rate: 1 });
    expect(o.verificationLatency.all).toEqual({ count: 1, p50: min(60), p90: min(60), p99: min(60) });
    expect(o.blockedTime).toMatchObject({ resolved: { count: 1, totalMs: min(30) }, open: 1, resets: 1 });
    expect(o.unverifiedCompletions.count).toBe(2);
    expect(o.completionChecks).toMatchObject({ total: 1, rejected: 1 });
    expect(o.goalAttempts).toMatchObject({ attempts: 2, successes: 1, goals: 2, breakdowns: 0 });
    expect(o.tokens.tokens).toBe(2000);
  });

  it("source = shots-on-goal: only s3", async () => {
    const o = await overview({ source: "shots-on-goal" });
    expect(o.falseCompletion).toMatchObject({ claims: 2, blocked: 1 });
    expect(o.unverifiedCompletions.count).toBe(0);
    expect(o.goalAttempts).toMatchObject({ attempts: 5, successes: 1, goals: 2, breakdowns: 1 });
  });

  it("agent = developer_2: its claims, spells, unverified work and tokens; criteria and attempts say they ignore it", async () => {
    const o = await overview({ agent: "developer_2" });
    expect(o.falseCompletion).toMatchObject({ claims: 3, blocked: 2, byAgent: [{ agent: "developer_2", claims: 3, blocked: 2 }] });
    // t2 blocked after 30, verified after 40; v2 blocked after 10.
    expect(o.verificationLatency.all).toEqual({ count: 3, p50: min(30), p90: min(40), p99: min(40) });
    expect(o.blockedTime).toMatchObject({ resolved: { count: 1, totalMs: min(60) }, open: 1, resets: 1 });
    expect(o.unverifiedCompletions.count).toBe(1);
    expect(o.completionChecks.total).toBe(0);
    expect(o.tokens).toMatchObject({ tokens: 2000, byAgentType: [{ agentType: "developer", tokens: 2000 }] });
    expect(o.criteria.sessions).toBe(4);
    expect(o.goalAttempts.attempts).toBe(7);
    expect(o.ignoredFilters).toEqual({ criteria: ["agent"], goalAttempts: ["agent"] });
  });

  it("agent = lead@example.com: the one accepted check", async () => {
    const o = await overview({ agent: ACTORS.lead.label });
    expect(o.completionChecks).toMatchObject({ total: 1, accepted: 1, rejected: 0, topReasons: [] });
    expect(o.falseCompletion.claims).toBe(0);
  });

  it("model = model-b: claims in s2 and its tokens; model-y: attempts", async () => {
    const b = await overview({ model: "model-b" });
    expect(b.falseCompletion).toMatchObject({ claims: 1, blocked: 1, byModel: [{ model: "model-b", claims: 1, blocked: 1, rate: 1 }] });
    expect(b.verificationLatency.all.count).toBe(1);
    expect(b.blockedTime.resolved).toMatchObject({ count: 1, totalMs: min(30) });
    expect(b.tokens.tokens).toBe(2000);
    expect(b.goalAttempts.attempts).toBe(0);
    expect(b.ignoredFilters).toEqual({ criteria: ["model"], completionChecks: ["model"], runtimeStops: ["model"] });
    const y = await overview({ model: "model-y" });
    expect(y.goalAttempts).toMatchObject({ attempts: 3, successes: 2 });
    // Attempt numbers stay the goal's own: model-y's attempts were G1's 2nd, G2's 3rd and G3's 1st.
    expect(y.goalAttempts.byAttemptNumber.map((n) => n.attemptNumber)).toEqual([1, 2, 3]);
    expect(y.falseCompletion.claims).toBe(0);
  });

  it("date range (epoch ms): Tuesday 3 March only", async () => {
    const o = await overview({ from: day(1), to: day(2) - 1 });
    expect(o.criteria.sessions).toBe(1);
    expect(o.falseCompletion).toMatchObject({ claims: 1, blocked: 1 });
    expect(o.unverifiedCompletions.count).toBe(2);
    expect(o.completionChecks.total).toBe(1);
    expect(o.goalAttempts.attempts).toBe(2);
    expect(o.tokens.tokens).toBe(2000);
    expect(o.filters).toMatchObject({ from: day(1), to: day(2) - 1 });
  });

  it("date range (Date), inclusive at both ends: Monday from the 25th to the 42nd minute", async () => {
    // Claims made 10–42: t1 (10), t2 (12), t3 (20) on Monday; from 25 only none — the range bounds the claim's time.
    const none = await overview({ from: new Date(at(0, 25)), to: new Date(at(0, 42)) });
    expect(none.falseCompletion.claims).toBe(0);
    const o = await overview({ from: new Date(at(0, 12)), to: new Date(at(0, 20)) });
    expect(o.falseCompletion).toMatchObject({ claims: 2, blocked: 2 });
    expect(o.blockedTime.open).toBe(0);
    const blockedFrom30 = await overview({ from: new Date(at(0, 30)), to: new Date(at(0, 30)) });
    expect(blockedFrom30.blockedTime.open).toBe(1);
  });

  it("bucket = week: ISO weeks starting Monday", async () => {
    const o = await overview({ bucket: "week" });
    expect(o.falseCompletion.series).toEqual([
      { bucket: day(0), claims: 6, blocked: 3, rate: 0.5 },
      { bucket: day(7), claims: 2, blocked: 1, rate: 0.5 },
    ]);
    expect(o.tokens.series.map((p) => [p.bucket, p.tokens])).toEqual([
      [day(0), 3500],
      [day(7), 1000],
    ]);
  });
});

describe("analytics.overview, runtime stops under each filter", () => {
  it("source: bazinga has s2's one held and one unverified stop, shots-on-goal none", async () => {
    expect((await overview({ source: "bazinga" })).runtimeStops).toEqual({
      held: 1,
      unverified: 1,
      sessionsUnverified: 1,
      series: [{ bucket: day(1), held: 1, unverified: 1 }],
    });
    expect((await overview({ source: "shots-on-goal" })).runtimeStops).toEqual({ held: 0, unverified: 0, sessionsUnverified: 0, series: [] });
  });

  it("agent: who ran the hook (claude), so a developer's filter leaves none", async () => {
    expect((await overview({ agent: "claude" })).runtimeStops).toMatchObject({ held: 3, unverified: 2 });
    expect((await overview({ agent: "developer_2" })).runtimeStops).toMatchObject({ held: 0, unverified: 0 });
  });

  it("range, inclusive at both ends: Monday's 211th to 212th minute has one held and the unverified stop", async () => {
    expect((await overview({ from: at(0, 211), to: at(0, 212) })).runtimeStops).toEqual({
      held: 1,
      unverified: 1,
      sessionsUnverified: 1,
      series: [{ bucket: day(0), held: 1, unverified: 1 }],
    });
    expect((await overview({ from: day(1), to: day(2) - 1 })).runtimeStops).toMatchObject({ held: 1, unverified: 1 });
  });

  it("bucket = week: the two days in one ISO week; model is not applied and says so", async () => {
    expect((await overview({ bucket: "week" })).runtimeStops.series).toEqual([{ bucket: day(0), held: 3, unverified: 2 }]);
    const m = await overview({ model: "model-a" });
    expect(m.runtimeStops).toMatchObject({ held: 3, unverified: 2 });
    expect(m.ignoredFilters.runtimeStops).toEqual(["model"]);
  });
});

describe("analytics.overview input", () => {
  it("refuses to before from, BAD_REQUEST naming to", async () => {
    const r = await expectBadRequest(overview({ from: day(2), to: day(1) }), "to");
    expect(r.message).toContain("must not be before from");
  });

  it("refuses an unknown source, naming source", async () => {
    await expectBadRequest(overview({ source: "jira" as "api" }), "source");
  });

  it("refuses a bad bucket, a bad date and an unknown field, naming each", async () => {
    await expectBadRequest(overview({ bucket: "month" as "day" }), "bucket");
    await expectBadRequest(overview({ from: -5 }), "from");
    await expectBadRequest(overview({ agent: "" }), "agent");
    await expectBadRequest(overview({ colour: "red" } as never), "colour");
  });

  it("is readable by a viewer and refused without credentials", async () => {
    expect((await f.as("viewer").analytics.overview({})).falseCompletion.claims).toBe(8);
    const r = await refusal(f.by(null).analytics.overview({}));
    expect(r.code).toBe("UNAUTHORIZED");
  });
});

describe("analytics.overview shares the server", () => {
  it("lets the event loop through before, between and after its steps: the figures and the criteria's two queries", async () => {
    let turns = 0;
    let running = true;
    const tick = () => {
      turns += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const o = await overview();
    running = false;
    // One pause before the figures, one after each of the 9 figures, one between the criteria's
    // rates and its top lists: each pause lets at least two turns of the loop go by.
    expect(Object.keys(o.timings)).toHaveLength(9);
    expect(turns).toBeGreaterThanOrEqual(2 * (1 + 9 + 1));
  });
});
