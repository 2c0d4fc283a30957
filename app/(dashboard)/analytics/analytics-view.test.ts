import { describe, expect, it } from "vitest";
import { AnalyticsInput } from "@/server/services/analytics/schemas";
import { DEFAULT_VIEW, analyticsHref, analyticsSearch, clearFilters, hasFilters, isDay, parseAnalyticsView, toOverviewInput } from "./analytics-view";

describe("parseAnalyticsView", () => {
  it("reads every filter from the address", () => {
    const { view, problems } = parseAnalyticsView(
      new URLSearchParams("from=2026-10-01&to=2026-10-31&source=bazinga&agent=developer_1&model=gpt-5&bucket=week"),
    );
    expect(problems).toEqual([]);
    expect(view).toEqual({ from: "2026-10-01", to: "2026-10-31", source: "bazinga", agent: "developer_1", model: "gpt-5", bucket: "week" });
  });

  it("gives the defaults for an empty address, from a record as the server page gets it", () => {
    expect(parseAnalyticsView({})).toEqual({ view: DEFAULT_VIEW, problems: [] });
    expect(parseAnalyticsView({ source: ["api", "demo"] }).view.source).toBe("api");
  });

  it("leaves out what is invalid and names the parameter and the rule", () => {
    const { view, problems } = parseAnalyticsView({ from: "2026-02-30", to: "yesterday", source: "excel", bucket: "month", agent: "x".repeat(201) });
    expect(view).toEqual(DEFAULT_VIEW);
    expect(problems).toEqual([
      'from: must be a day as YYYY-MM-DD from 1970-01-01 on (got "2026-02-30")',
      'to: must be a day as YYYY-MM-DD from 1970-01-01 on (got "yesterday")',
      'source: must be one of api, demo, bazinga, shots-on-goal (got "excel")',
      "agent: must be at most 200 characters (got 201)",
      'bucket: must be day or week (got "month")',
    ]);
  });

  it("drops a range's end that comes before its start (the API would refuse it)", () => {
    const { view, problems } = parseAnalyticsView({ from: "2026-10-31", to: "2026-10-01" });
    expect(view.from).toBe("2026-10-31");
    expect(view.to).toBeNull();
    expect(problems).toEqual(["to: must not be before from (2026-10-01 < 2026-10-31)"]);
  });

  it("trims labels and treats blank ones as no filter", () => {
    expect(parseAnalyticsView({ agent: "  developer_2 ", model: "   " }).view).toMatchObject({ agent: "developer_2", model: null });
  });
});

describe("analyticsSearch / analyticsHref", () => {
  it("leaves the defaults out", () => {
    expect(analyticsHref(DEFAULT_VIEW)).toBe("/analytics");
    expect(analyticsSearch({ ...DEFAULT_VIEW, bucket: "week" })).toBe("?bucket=week");
  });

  it("round-trips through the parser, encoding what needs it", () => {
    const view = {
      from: "2026-01-01",
      to: "2026-01-02",
      source: "shots-on-goal" as const,
      agent: "qa & co",
      model: "claude-sonnet-4.5",
      bucket: "week" as const,
    };
    const search = analyticsSearch(view);
    expect(search).toContain("agent=qa+%26+co");
    expect(parseAnalyticsView(new URLSearchParams(search)).view).toEqual(view);
  });
});

describe("toOverviewInput", () => {
  it("turns days into the API's inclusive epoch-ms range: from the first millisecond of from to the last of to", () => {
    const input = toOverviewInput({ ...DEFAULT_VIEW, from: "2026-03-02", to: "2026-03-02", source: "api", agent: "developer_1" });
    expect(input).toEqual({ from: Date.UTC(2026, 2, 2), to: Date.UTC(2026, 2, 3) - 1, source: "api", agent: "developer_1", bucket: "day" });
  });

  it("sends only the filters that are set, and the API's schema accepts what it sends", () => {
    expect(toOverviewInput(DEFAULT_VIEW)).toEqual({ bucket: "day" });
    const full = toOverviewInput({ from: "2026-01-01", to: "2026-12-31", source: "demo", agent: "pm", model: "gpt-5", bucket: "week" });
    expect(AnalyticsInput.safeParse(full).success).toBe(true);
  });
});

describe("filters", () => {
  it("knows when a view is filtered, and clearing keeps the bucket width", () => {
    const view = { ...DEFAULT_VIEW, model: "gpt-5", bucket: "week" as const };
    expect(hasFilters(DEFAULT_VIEW)).toBe(false);
    expect(hasFilters({ ...DEFAULT_VIEW, bucket: "week" })).toBe(false);
    expect(hasFilters(view)).toBe(true);
    expect(clearFilters(view)).toEqual({ ...DEFAULT_VIEW, bucket: "week" });
  });

  it("accepts only real days from 1970 on", () => {
    expect(isDay("2024-02-29")).toBe(true);
    expect(isDay("2026-02-29")).toBe(false);
    expect(isDay("1969-12-31")).toBe(false);
    expect(isDay("2026-1-01")).toBe(false);
  });
});
