import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, activityHref, csvHref, hasFilters, parseActivityView, toSearchInput, withFilters } from "./activity-view";

describe("the /activity address", () => {
  it("reads every filter and the page, and writes them back to the same address", () => {
    const href = "/activity?type=task.claimed&actor=developer_1&session=s1&source=bazinga&from=2026-11-01&to=2026-11-02&before=120&page=3";
    const { view, problems } = parseActivityView(new URL(href, "http://x").searchParams);
    expect(problems).toEqual([]);
    expect(view).toEqual({
      type: "task.claimed",
      actor: "developer_1",
      session: "s1",
      source: "bazinga",
      from: "2026-11-01",
      to: "2026-11-02",
      before: 120,
      page: 3,
    });
    expect(activityHref(view)).toBe(href);
  });

  it("leaves defaults out, and a filter change goes back to the first page", () => {
    expect(activityHref(DEFAULT_VIEW)).toBe("/activity");
    const paged = { ...DEFAULT_VIEW, before: 50, page: 2 };
    expect(activityHref(withFilters(paged, { actor: "lead@example.com" }))).toBe("/activity?actor=lead%40example.com");
  });

  it("ignores what is invalid, naming the parameter and the rule", () => {
    const { view, problems } = parseActivityView({ source: "cron", from: "2026-13-01", before: "abc", session: "a b", type: "x y" });
    expect(view).toEqual(DEFAULT_VIEW);
    expect(problems).toEqual([
      'type: must be an event type such as task.claimed (got "x y")',
      'session: may contain only letters, digits and . _ : - (got "a b")',
      'source: must be one of api, demo, bazinga, shots-on-goal (got "cron")',
      'from: must be a date as YYYY-MM-DD (got "2026-13-01")',
      'before: must be an event id (got "abc"); showing the first page',
    ]);
    expect(parseActivityView({ from: "2026-11-02", to: "2026-11-01" }).problems).toEqual(["to: must not be before from (2026-11-01 < 2026-11-02)"]);
  });

  it("asks events.search for whole UTC days, and the CSV for the filters only (every page)", () => {
    const { view } = parseActivityView({ session: "s1", from: "2026-11-01", to: "2026-11-01", before: "9", page: "2" });
    expect(toSearchInput(view)).toEqual({
      filter: { sessionId: "s1", from: new Date("2026-11-01T00:00:00.000Z"), to: new Date("2026-11-01T23:59:59.999Z") },
      cursor: 9,
      limit: 50,
    });
    expect(csvHref(view)).toBe("/api/activity/csv?session=s1&from=2026-11-01&to=2026-11-01");
    expect(hasFilters(view)).toBe(true);
    expect(hasFilters({ ...DEFAULT_VIEW, before: 9, page: 2 })).toBe(false);
  });
});
