import { rawGet } from "@/db/query";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemoryDb } from "@/db/client";
import type { CriterionState } from "@/server/domain/criteria";
import { evaluateCompletion } from "@/server/domain/completion-gate";
import { bucketSql, sessionModelOf } from "./filters";
import {
  DAY_MS,
  MAX_FILLED_BUCKETS,
  agentTypeOf,
  bucketStart,
  fillSeries,
  nearestRank,
  percentilesOfHistogram,
  rate,
  rateBin,
  reasonKind,
  topReasons,
} from "./shape";

const db = createMemoryDb();

describe("rate", () => {
  it("divides, and is null (not 0%) when there is nothing to divide", () => {
    expect(rate(1, 4)).toBe(0.25);
    expect(rate(0, 4)).toBe(0);
    expect(rate(0, 0)).toBeNull();
  });
});

describe("buckets", () => {
  it("starts a day at UTC midnight and a week on its Monday", () => {
    const wednesday = Date.UTC(2026, 2, 4, 15, 30);
    expect(bucketStart(wednesday, "day")).toBe(Date.UTC(2026, 2, 4));
    expect(bucketStart(wednesday, "week")).toBe(Date.UTC(2026, 2, 2));
    expect(bucketStart(Date.UTC(2026, 2, 2), "week")).toBe(Date.UTC(2026, 2, 2));
    expect(bucketStart(Date.UTC(2026, 2, 8, 23, 59), "week")).toBe(Date.UTC(2026, 2, 2));
    expect(bucketStart(Date.UTC(2026, 2, 9), "week")).toBe(Date.UTC(2026, 2, 9));
    expect(new Date(bucketStart(0, "week")).getUTCDay()).toBe(1);
  });

  it("bucketSql computes in SQLite exactly what bucketStart computes in JS", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 42 }), fc.constantFrom("day" as const, "week" as const), async (at, bucket) => {
        const row = await rawGet<{ b: number }>(db, sql`SELECT ${bucketSql(sql`${at}`, bucket)} AS b`);
        expect(row?.b).toBe(bucketStart(at, bucket));
      }),
    );
  });

  it("fills the buckets between the first and the last with data, and never more than MAX_FILLED_BUCKETS", () => {
    const points = [
      { bucket: 3 * DAY_MS, n: 3 },
      { bucket: 0, n: 1 },
    ];
    expect(fillSeries(points, "day", (bucket) => ({ bucket, n: 0 }))).toEqual([
      { bucket: 0, n: 1 },
      { bucket: DAY_MS, n: 0 },
      { bucket: 2 * DAY_MS, n: 0 },
      { bucket: 3 * DAY_MS, n: 3 },
    ]);
    expect(fillSeries([{ bucket: 0 }, { bucket: 14 * DAY_MS }], "week", (bucket) => ({ bucket }))).toHaveLength(3);
    expect(fillSeries([], "day", (bucket) => ({ bucket }))).toEqual([]);
    const far = [{ bucket: MAX_FILLED_BUCKETS * DAY_MS }, { bucket: 0 }];
    expect(fillSeries(far, "day", (bucket) => ({ bucket }))).toEqual([{ bucket: 0 }, { bucket: MAX_FILLED_BUCKETS * DAY_MS }]);
  });
});

describe("percentiles", () => {
  it("nearest rank: the value at rank ⌈p·n⌉", () => {
    const values = [5, 10, 10, 15, 20, 30, 40, 60];
    expect(nearestRank(values, 50)).toBe(15);
    expect(nearestRank(values, 90)).toBe(60);
    expect(nearestRank([7], 99)).toBe(7);
    expect(nearestRank([], 50)).toBeNull();
  });

  it("from a histogram equal the nearest-rank percentiles of the values it counts", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 300 }), (values) => {
        const counts = new Map<number, number>();
        for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
        const histogram = [...counts.entries()].map(([value, count]) => ({ value, count }));
        const sorted = [...values].sort((a, b) => a - b);
        expect(percentilesOfHistogram(histogram)).toEqual({
          count: values.length,
          p50: nearestRank(sorted, 50),
          p90: nearestRank(sorted, 90),
          p99: nearestRank(sorted, 99),
        });
      }),
    );
  });
});

describe("rateBin", () => {
  it("puts a rate in its ten-point bin, and only exactly 100% in the last", () => {
    expect(rateBin(0, 3)).toBe(0);
    expect(rateBin(1, 2)).toBe(5);
    expect(rateBin(2, 3)).toBe(6);
    expect(rateBin(99, 100)).toBe(9);
    expect(rateBin(4, 4)).toBe(10);
  });
});

describe("reasonKind", () => {
  const criterion = (name: string, status: CriterionState["status"], extra: Partial<CriterionState> = {}): CriterionState => ({
    criterion: name,
    status,
    actual: null,
    evidence: null,
    requiredForCompletion: true,
    verifierStatus: null,
    ...extra,
  });

  it("groups every reason the completion gate words, whatever the counts and names in it", () => {
    const verdict = evaluateCompletion({
      criteria: [
        criterion("Tests pass", "failed"),
        criterion("Coverage", "pending"),
        criterion("Docs", "blocked"),
        criterion("Lint", "met", { verifierStatus: "failed" }),
        criterion("Types", "met"),
      ],
      tasks: [
        { key: "a", title: "a", status: "pending", verification: null },
        { key: "b", title: "b", status: "in_progress", verification: null },
        { key: "c", title: "c", status: "claimed", verification: null },
        { key: "d", title: "d", status: "verified", verification: "verified" },
        { key: "e", title: "e", status: "blocked", verification: null },
        { key: "f", title: "f", status: "blocked", verification: null },
        { key: "g", title: "g", status: "completed", verification: "none" },
      ],
      contractGoals: [
        { id: 1, goalText: "Ship it", verdict: "PARTIAL" },
        { id: 2, goalText: "Other", verdict: null },
      ],
    });
    expect(verdict.reasons.map(reasonKind)).toEqual([
      "Not every required criterion met",
      "Criterion failed",
      "Criterion pending",
      "Criterion blocked without an external blocker",
      "Criterion claimed but the verifier disagreed",
      "Tasks pending",
      "Tasks in progress",
      "Tasks claimed",
      "Tasks verified",
      "Tasks blocked",
      "Tasks completed without verification",
      "Goal has not passed both gates (PARTIAL)",
      "Goal has not passed both gates (never evaluated)",
    ]);
    const empty = evaluateCompletion({ criteria: [], tasks: [], contractGoals: [] });
    expect(empty.reasons.map(reasonKind)).toEqual(["No required success criteria recorded"]);
  });

  it("keeps a reason the gate did not word (an imported verdict) as it is, cut at 200 characters", () => {
    expect(reasonKind("  Validator rejected: evidence missing ")).toBe("Validator rejected: evidence missing");
    const long = "x".repeat(300);
    expect(reasonKind(long)).toHaveLength(200);
    expect(reasonKind(long).endsWith("…")).toBe(true);
  });
});

describe("topReasons", () => {
  it("counts a check once per kind, largest first, then by name, up to the limit", () => {
    const rows = [
      { checkId: 1, reason: 'Criterion "A" is not met: failed' },
      { checkId: 1, reason: 'Criterion "B" is not met: failed' },
      { checkId: 1, reason: "Only 0/2 criteria met" },
      { checkId: 2, reason: "Only 1/3 criteria met" },
      { checkId: 3, reason: "1 task is blocked: t1" },
    ];
    expect(topReasons(rows, 10)).toEqual([
      { reason: "Not every required criterion met", checks: 2, example: "Only 0/2 criteria met" },
      { reason: "Criterion failed", checks: 1, example: 'Criterion "A" is not met: failed' },
      { reason: "Tasks blocked", checks: 1, example: "1 task is blocked: t1" },
    ]);
    expect(topReasons(rows, 1)).toHaveLength(1);
  });
});

describe("agent types and session models", () => {
  it("agentTypeOf drops the trailing number, as sessionModelOf does in SQL", async () => {
    const labels = ["developer_1", "developer_12", "senior_software_engineer_1", "pm", "qa_expert", "agent2", "lead@example.com", 'odd"label_3'];
    const models = JSON.stringify(Object.fromEntries(labels.map((label) => [agentTypeOf(label), `model of ${agentTypeOf(label)}`])));
    for (const label of labels) {
      const row = await rawGet<{ model: string | null }>(db, sql`SELECT ${sessionModelOf(db, sql`${models}`, sql`${label}`)} AS model`);
      expect(row?.model, label).toBe(`model of ${agentTypeOf(label)}`);
    }
    expect(agentTypeOf("developer_2")).toBe("developer");
    expect(agentTypeOf("senior_software_engineer_1")).toBe("senior_software_engineer");
  });

  it("sessionModelOf is null when the session recorded no model for that type, or no models at all", async () => {
    expect((await rawGet<{ m: unknown }>(db, sql`SELECT ${sessionModelOf(db, sql`${'{"developer":"x"}'}`, sql`${"qa_expert_1"}`)} AS m`))?.m).toBeNull();
    expect((await rawGet<{ m: unknown }>(db, sql`SELECT ${sessionModelOf(db, sql`NULL`, sql`${"developer_1"}`)} AS m`))?.m).toBeNull();
  });
});
