/**
 * The page's sections shaped from a real `analytics.overview` answer on the hand-built ledger of
 * test/support/analytics-scenario.ts (whose figures overview.test.ts works out by hand).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Fixture, setup } from "@/test/support/api-helpers";
import type { AnalyticsOverview } from "@/server/services/analytics/overview";
import type { AnalyticsInput } from "@/server/services/analytics/schemas";
import { DAY_MS, MINUTE, MONDAY, buildScenario } from "@/test/support/analytics-scenario";
import type { Section } from "./section-kit";
import { analyticsSections, ignoredNotes } from "./sections";
import { ordinal } from "./sections-outcomes";
import { tableCsv } from "./table";

let f: Fixture;
const overview = (input: AnalyticsInput = {}): Promise<AnalyticsOverview> => f.as("viewer").analytics.overview(input);
const find = (sections: Section[], id: string) => {
  const section = sections.find((s) => s.id === id);
  if (!section) throw new Error(`no section ${id}`);
  return section;
};
const block = (section: Section, id: string) => {
  const found = section.blocks.find((b) => b.id === id);
  if (!found) throw new Error(`no block ${id}`);
  return found;
};
const stat = (section: Section, id: string) => section.stats.find((s) => s.id === id)?.value;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  f = setup();
  await buildScenario(f);
});
afterAll(() => {
  vi.useRealTimers();
});

describe("analyticsSections on the scenario, no filters", () => {
  let sections: Section[];
  beforeAll(async () => {
    sections = analyticsSections(await overview());
  });

  it("has every figure, each section with something to show", () => {
    expect(sections.map((s) => s.id)).toEqual([
      "criteria",
      "criteria-top",
      "false-completion",
      "verification-latency",
      "blocked-time",
      "unverified",
      "completion-checks",
      "runtime-stops",
      "goal-attempts",
      "tokens",
    ]);
    expect(sections.filter((s) => s.id !== "tokens").every((s) => s.empty === null)).toBe(true);
  });

  it("keeps every table rectangular and every chart on columns of one kind", () => {
    for (const section of sections) {
      for (const b of section.blocks) {
        for (const row of b.table.rows) expect(row, b.id).toHaveLength(b.table.columns.length);
        if (!b.chart) continue;
        const kinds = new Set(b.chart.ys.map((y) => b.table.columns[y]?.kind));
        expect(kinds.size, b.id).toBe(1);
        expect(kinds.has("text") || kinds.has(undefined), b.id).toBe(false);
      }
    }
  });

  it("false completions: the headline rate and the by-agent table carry the figure's numbers", () => {
    const fc = find(sections, "false-completion");
    expect(stat(fc, "false-completion-rate")).toBe(0.5);
    expect(fc.stats[0]?.detail).toBe("4 of 8 claims");
    expect(block(fc, "false-completion-by-agent").table.rows).toEqual([
      ["developer_1", 4, 2, 0.5],
      ["developer_2", 3, 2, 2 / 3],
      ["senior_software_engineer_1", 1, 0, 0],
    ]);
    // A claim whose session recorded no model for its agent type is shown as such, not dropped.
    expect(block(fc, "false-completion-by-model").table.rows.at(-1)).toEqual(["not recorded", 1, 0, 0]);
    expect(block(fc, "false-completion-over-time").table.rows[2]).toEqual([MONDAY + 2 * DAY_MS, 0, 0, null]);
  });

  it("verification latency: one row per judgment with p50/p90/p99", () => {
    const table = block(find(sections, "verification-latency"), "verification-latency-percentiles").table;
    expect(table.rows).toEqual([
      ["Verified or blocked", 8, 15 * MINUTE, 60 * MINUTE, 60 * MINUTE],
      ["Verified", 4, 15 * MINUTE, 40 * MINUTE, 40 * MINUTE],
      ["Blocked", 4, 10 * MINUTE, 60 * MINUTE, 60 * MINUTE],
    ]);
  });

  it("completion checks: counts, the series as a stacked chart, and the reasons as a table", () => {
    const cc = find(sections, "completion-checks");
    expect([stat(cc, "checks-accepted"), stat(cc, "checks-rejected"), stat(cc, "checks-acceptance-rate")]).toEqual([1, 3, 0.25]);
    const overTime = block(cc, "completion-checks-over-time");
    expect(overTime.chart).toEqual({ type: "stacked", x: 0, ys: [1, 2] });
    expect(overTime.table.rows[0]).toEqual([MONDAY, 0, 1]);
    expect(block(cc, "completion-checks-top-reasons").table.rows[0]?.slice(0, 2)).toEqual(["Not every required criterion met", 3]);
  });

  it("goal attempts by number read as ordinals, unverified completions list every source", () => {
    const ga = find(sections, "goal-attempts");
    expect(block(ga, "goal-attempts-by-number").table.rows[0]).toEqual(["1st", 4, 1, 0.25]);
    expect(block(find(sections, "unverified"), "unverified-by-source").table.rows).toEqual([
      ["api", 0],
      ["demo", 0],
      ["bazinga", 2],
      ["shots-on-goal", 0],
    ]);
  });

  it("runtime stops: held and unverified counts, per day, and their CSV", () => {
    const rs = find(sections, "runtime-stops");
    expect([stat(rs, "runtime-stops-held"), stat(rs, "runtime-stops-unverified")]).toEqual([3, 2]);
    expect(rs.stats[1]?.detail).toBe("in 2 sessions");
    const overTime = block(rs, "runtime-stops-over-time");
    expect(overTime.chart).toEqual({ type: "stacked", x: 0, ys: [1, 2] });
    expect(tableCsv(overTime.table, "day")).toBe("Day (UTC),Stops held,Stopped with the gate rejected\r\n2026-03-02,2,1\r\n2026-03-03,1,1\r\n");
  });

  it("the CSV of a block holds its table's values", () => {
    const table = block(find(sections, "false-completion"), "false-completion-by-agent").table;
    expect(tableCsv(table, "day")).toBe(
      "Agent,Claims,Later blocked,False-completion rate (fraction)\r\ndeveloper_1,4,2,0.5\r\ndeveloper_2,3,2,0.666667\r\nsenior_software_engineer_1,1,0,0\r\n",
    );
  });
});

describe("analyticsSections with filters", () => {
  it("says why a filter does not apply to a figure", async () => {
    const o = await overview({ agent: "developer_1", model: "model-a" });
    expect(ignoredNotes(o, "criteria")).toEqual([
      "The agent filter is not applied here: criteria belong to a session, not to an agent.",
      "The model filter is not applied here: criteria belong to a session, not to a model.",
    ]);
    expect(ignoredNotes(o, "completionChecks")).toEqual(["The model filter is not applied here: a completion check records no model."]);
    expect(ignoredNotes(o, "goalAttempts")).toEqual(["The agent filter is not applied here: a goal attempt names no agent."]);
    expect(ignoredNotes(o, "falseCompletion")).toEqual([]);
  });

  it("gives every section its empty state when nothing matches, naming the filters as the reason", async () => {
    const sections = analyticsSections(await overview({ from: Date.UTC(2030, 0, 1) }));
    for (const section of sections) expect(section.empty, section.id).toMatch(/for these filters/);
  });

  it("buckets by week when asked: the over-time tables say so", async () => {
    const sections = analyticsSections(await overview({ bucket: "week" }));
    const table = block(find(sections, "false-completion"), "false-completion-over-time").table;
    expect(table.columns[0]).toEqual({ label: "Week", kind: "bucket" });
    expect(table.rows.map((r) => r[0])).toEqual([MONDAY, MONDAY + 7 * DAY_MS]);
  });
});

describe("ordinal", () => {
  it("names attempt numbers in English", () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]);
  });
});
