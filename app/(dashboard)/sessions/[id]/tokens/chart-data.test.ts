import { describe, expect, it } from "vitest";
import {
  AUTO_MAX_PERIODS,
  type BucketInput,
  UNNAMED,
  autoBucket,
  bucketLabel,
  formatTokens,
  readBucket,
  rebucket,
  shapeGroups,
  shapeOverTime,
} from "./chart-data";

describe("shapeGroups", () => {
  it("orders groups by tokens with their share, and totals them", () => {
    const table = shapeGroups({
      groups: [
        { key: "qa_expert", tokens: 1000, entries: 2 },
        { key: "developer", tokens: 3000, entries: 3 },
        { key: null, tokens: 1000, entries: 1 },
      ],
      total: 5000,
    });
    expect(table.rows).toEqual([
      { name: "developer", tokens: 3000, entries: 3, share: 60 },
      { name: UNNAMED, tokens: 1000, entries: 1, share: 20 },
      { name: "qa_expert", tokens: 1000, entries: 2, share: 20 },
    ]);
    expect([table.tokens, table.entries]).toEqual([5000, 6]);
  });

  it("gives no share when nothing was used", () => {
    expect(shapeGroups({ groups: [{ key: "developer", tokens: 0, entries: 1 }], total: 0 }).rows[0]!.share).toBe(0);
    expect(shapeGroups({ groups: [], total: 0 })).toEqual({ rows: [], tokens: 0, entries: 0 });
  });
});

describe("shapeOverTime", () => {
  const hour = (h: number) => new Date(Date.UTC(2026, 10, 21, h));
  it("lines every agent up in every period, largest agent first, periods in time order", () => {
    const series = shapeOverTime(
      [
        { start: hour(15), tokens: 500, cumulative: 2500, byAgentType: { qa_expert: 500 } },
        { start: hour(14), tokens: 2000, cumulative: 2000, byAgentType: { developer: 1800, qa_expert: 200 } },
      ],
      "hour",
    );
    expect(series.agents).toEqual(["developer", "qa_expert"]);
    expect(series.rows).toEqual([
      { start: hour(14).getTime(), label: "2026-11-21 14:00", tokens: 2000, cumulative: 2000, byAgent: { developer: 1800, qa_expert: 200 } },
      { start: hour(15).getTime(), label: "2026-11-21 15:00", tokens: 500, cumulative: 2500, byAgent: { developer: 0, qa_expert: 500 } },
    ]);
    // The stacked bars of a period add up to its total.
    for (const row of series.rows) expect(Object.values(row.byAgent).reduce((a, b) => a + b, 0)).toBe(row.tokens);
  });

  it("is empty without token rows", () => {
    expect(shapeOverTime([], "day")).toEqual({ rows: [], agents: [] });
  });
});

describe("rebucket and autoBucket", () => {
  const at = (day: number, hour: number, minute: number) => new Date(Date.UTC(2026, 10, day, hour, minute));
  const minutes: BucketInput[] = [
    { start: at(21, 14, 59), tokens: 100, cumulative: 100, byAgentType: { developer: 100 } },
    { start: at(21, 14, 3), tokens: 50, cumulative: 50, byAgentType: { qa_expert: 50 } },
    { start: at(21, 15, 0), tokens: 25, cumulative: 175, byAgentType: { developer: 20, qa_expert: 5 } },
    { start: at(22, 1, 0), tokens: 10, cumulative: 185, byAgentType: { developer: 10 } },
  ];

  it("sums minutes into hours and days with a fresh running total", () => {
    expect(rebucket(minutes, "hour")).toEqual([
      { start: at(21, 14, 0), tokens: 150, cumulative: 150, byAgentType: { qa_expert: 50, developer: 100 } },
      { start: at(21, 15, 0), tokens: 25, cumulative: 175, byAgentType: { developer: 20, qa_expert: 5 } },
      { start: at(22, 1, 0), tokens: 10, cumulative: 185, byAgentType: { developer: 10 } },
    ]);
    expect(rebucket(minutes, "day").map((d) => [d.tokens, d.cumulative])).toEqual([
      [175, 175],
      [10, 185],
    ]);
    expect(rebucket(minutes, "minute").map((m) => m.tokens)).toEqual([50, 100, 25, 10]);
  });

  it("picks the finest bucket that keeps the chart readable", () => {
    expect(autoBucket(minutes)).toBe("minute");
    const spread = Array.from({ length: AUTO_MAX_PERIODS + 1 }, (_, i) => ({
      start: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000),
      tokens: 1,
      cumulative: i + 1,
      byAgentType: { developer: 1 },
    }));
    expect(autoBucket(spread)).toBe("day");
    expect(autoBucket(spread.slice(0, 30))).toBe("minute");
    const busyHour = spread.map((m, i) => ({ ...m, start: new Date(Date.UTC(2026, 0, 1) + i * 60_000) }));
    expect(autoBucket(busyHour)).toBe("hour");
    expect(autoBucket([])).toBe("minute");
  });
});

describe("formats", () => {
  it("labels periods by bucket, formats numbers in one locale and reads the bucket from the URL", () => {
    const t = Date.UTC(2026, 10, 21, 14, 3);
    expect([bucketLabel(t, "day"), bucketLabel(t, "hour"), bucketLabel(t, "minute")]).toEqual(["2026-11-21", "2026-11-21 14:03", "2026-11-21 14:03"]);
    expect(formatTokens(1234567)).toBe("1,234,567");
    expect([readBucket("day"), readBucket("week"), readBucket(undefined), readBucket(["minute", "day"])]).toEqual(["day", "auto", "auto", "minute"]);
  });
});
