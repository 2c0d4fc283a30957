/**
 * analytics.overview on generated demo data, checked against figures recomputed here from the raw
 * rows with plain SQL and JavaScript — a second, independent derivation of the same definitions.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type Fixture, rows, setup } from "@/test/support/api-helpers";
import { generateDemoData } from "@/server/demo/generate";
import type { AnalyticsOverview } from "./overview";
import { nearestRank } from "./shape";

const NOW = new Date("2026-11-21T12:00:00Z");
let f: Fixture;
let o: AnalyticsOverview;

interface Transition {
  task_id: number;
  move: string;
  from_status: string | null;
  to_status: string;
  actor: string;
  at: number;
}

/** Walk each task's transitions in order, pairing every verify/block with the move that put the task into `claimed`. */
function judgedClaims(agent?: string): { claimant: string; move: string; ms: number }[] {
  const all = rows<Transition>(f.db, "SELECT task_id, move, from_status, to_status, actor, at FROM task_transitions ORDER BY task_id, id");
  const judged: { claimant: string; move: string; ms: number }[] = [];
  let entry: Transition | null = null;
  for (const t of all) {
    if (entry && entry.task_id !== t.task_id) entry = null;
    if ((t.move === "verify" || t.move === "block") && entry?.move === "claim") judged.push({ claimant: entry.actor, move: t.move, ms: t.at - entry.at });
    if (t.to_status === "claimed" && t.from_status !== "claimed") entry = t;
  }
  return agent === undefined ? judged : judged.filter((j) => j.claimant === agent);
}

beforeAll(async () => {
  f = setup();
  await generateDemoData(f.db, { sessions: 40, seed: 11, now: NOW, logsPerSession: 5 });
  o = await f.as("viewer").analytics.overview({});
});

describe("analytics.overview on demo data, recomputed independently", () => {
  it("has something to measure", () => {
    expect(o.falseCompletion.claims).toBeGreaterThan(100);
    expect(o.falseCompletion.blocked).toBeGreaterThan(5);
    expect(o.goalAttempts.attempts).toBeGreaterThan(10);
  });

  it("false-completion rate: claims whose judgment was a block ÷ claim moves, overall and by agent", () => {
    const claims = rows<{ actor: string; n: number }>(f.db, "SELECT actor, count(*) AS n FROM task_transitions WHERE move = 'claim' GROUP BY actor");
    const blocked = judgedClaims().filter((j) => j.move === "block");
    const total = claims.reduce((n, c) => n + c.n, 0);
    expect(o.falseCompletion).toMatchObject({ claims: total, blocked: blocked.length, rate: blocked.length / total });
    const byAgent = claims.map((c) => {
      const b = blocked.filter((j) => j.claimant === c.actor).length;
      return { agent: c.actor, claims: c.n, blocked: b, rate: b / c.n };
    });
    expect([...o.falseCompletion.byAgent].sort((a, b) => a.agent.localeCompare(b.agent))).toEqual(byAgent.sort((a, b) => a.agent.localeCompare(b.agent)));
  });

  it("criteria completion rate, from the criteria rows rather than the sessions' rollups", () => {
    const criteria = rows<{ session_id: string; met: number }>(
      f.db,
      "SELECT session_id, coalesce(verifier_status, status) = 'met' AS met FROM success_criteria WHERE required_for_completion",
    );
    const perSession = new Map<string, { required: number; met: number }>();
    for (const c of criteria) {
      const s = perSession.get(c.session_id) ?? { required: 0, met: 0 };
      s.required += 1;
      s.met += c.met;
      perSession.set(c.session_id, s);
    }
    const sessions = [...perSession.values()];
    const met = sessions.reduce((n, s) => n + s.met, 0);
    const required = sessions.reduce((n, s) => n + s.required, 0);
    expect(o.criteria).toMatchObject({ sessions: sessions.length, required, met, overallRate: met / required });
    expect(o.criteria.meanSessionRate).toBeCloseTo(sessions.reduce((sum, s) => sum + s.met / s.required, 0) / sessions.length, 12);
  });

  it("verification latency p50/p90/p99 (to the whole second)", () => {
    const seconds = judgedClaims()
      .map((j) => Math.floor(j.ms / 1000) * 1000)
      .sort((a, b) => a - b);
    expect(o.verificationLatency.all).toEqual({
      count: seconds.length,
      p50: nearestRank(seconds, 50),
      p90: nearestRank(seconds, 90),
      p99: nearestRank(seconds, 99),
    });
  });

  it("unverified completions and completion-check acceptance", () => {
    const [unverified] = rows<{ n: number }>(f.db, "SELECT count(*) AS n FROM tasks WHERE status = 'completed' AND verification = 'none'");
    expect(o.unverifiedCompletions.count).toBe(unverified!.n);
    expect(o.unverifiedCompletions.bySource.find((s) => s.source === "demo")?.count).toBe(unverified!.n);
    const [checks] = rows<{ total: number; accepted: number }>(f.db, "SELECT count(*) AS total, sum(accepted) AS accepted FROM completion_checks");
    expect(o.completionChecks).toMatchObject({ total: checks!.total, accepted: checks!.accepted, rejected: checks!.total - checks!.accepted });
  });

  it("goal attempts: success rate by attempt number, numbering each goal's implementation attempts in order", () => {
    const attempts = rows<{ goal_id: number; status: string | null }>(
      f.db,
      "SELECT a.goal_id, r.status FROM attempts a LEFT JOIN attempt_results r ON r.attempt_id = a.id WHERE a.attempt_type = 'implementation' ORDER BY a.goal_id, a.id",
    );
    const byNumber = new Map<number, { attempts: number; successes: number }>();
    let goal = -1;
    let n = 0;
    for (const a of attempts) {
      n = a.goal_id === goal ? n + 1 : 1;
      goal = a.goal_id;
      const entry = byNumber.get(n) ?? { attempts: 0, successes: 0 };
      entry.attempts += 1;
      if (a.status === "success") entry.successes += 1;
      byNumber.set(n, entry);
    }
    expect(o.goalAttempts.byAttemptNumber).toEqual(
      [...byNumber.entries()].sort(([a], [b]) => a - b).map(([attemptNumber, e]) => ({ attemptNumber, ...e, rate: e.successes / e.attempts })),
    );
  });
});

describe("filters on demo data", () => {
  it("agent = developer_2 keeps only that claimant's claims and latencies", async () => {
    const one = await f.as("viewer").analytics.overview({ agent: "developer_2" });
    const judged = judgedClaims("developer_2");
    const [claims] = rows<{ n: number }>(f.db, "SELECT count(*) AS n FROM task_transitions WHERE move = 'claim' AND actor = 'developer_2'");
    expect(one.falseCompletion).toMatchObject({ claims: claims!.n, blocked: judged.filter((j) => j.move === "block").length });
    expect(one.falseCompletion.claims).toBeLessThan(o.falseCompletion.claims);
    expect(one.verificationLatency.all.count).toBe(judged.length);
  });

  it("a source with no sessions empties every figure; the demo source keeps them all", async () => {
    const none = await f.as("viewer").analytics.overview({ source: "bazinga" });
    expect(none.falseCompletion).toMatchObject({ claims: 0, blocked: 0, rate: null, byAgent: [], series: [] });
    expect(none.criteria).toMatchObject({ sessions: 0, meanSessionRate: null });
    expect(none.goalAttempts.attempts).toBe(0);
    expect(none.tokens.tokens).toBe(0);
    const demo = await f.as("viewer").analytics.overview({ source: "demo" });
    expect({ ...demo, timings: null, filters: null }).toEqual({ ...o, timings: null, filters: null });
  });

  it("a date range keeps the claims made in it", async () => {
    const from = NOW.getTime() - 30 * 86_400_000;
    const ranged = await f.as("viewer").analytics.overview({ from, to: NOW });
    const [claims] = rows<{ n: number }>(f.db, "SELECT count(*) AS n FROM task_transitions WHERE move = 'claim' AND at BETWEEN ? AND ?", from, NOW.getTime());
    expect(ranged.falseCompletion.claims).toBe(claims!.n);
    expect(ranged.falseCompletion.claims).toBeLessThan(o.falseCompletion.claims);
  });
});
