import { queryRun } from "@/db/query";
import { describe, expect, it } from "vitest";
import { createMemoryDb } from "@/db/client";
import { sessions } from "@/db/schema";
import { listSessions } from "@/server/services/session/list";
import { DEFAULT_VIEW, PAGE_SIZE, hasFilters, parseSessionsView, sessionsHref, toListInput, withFilters } from "./sessions-view";

const parse = (query: string) => parseSessionsView(new URLSearchParams(query));

describe("the /sessions address", () => {
  it("reads every filter and writes the same address back (defaults left out)", () => {
    const query = "q=demo_7&status=failed&source=demo&blocked=1&from=2026-10-01&to=2026-10-31&order=oldest";
    const { view, problems } = parse(query);
    expect(problems).toEqual([]);
    expect(view).toEqual({
      q: "demo_7",
      status: "failed",
      source: "demo",
      blocked: true,
      from: "2026-10-01",
      to: "2026-10-31",
      order: "oldest",
      after: null,
      page: 1,
    });
    expect(sessionsHref(view)).toBe(`/sessions?${query}`);
    expect(sessionsHref(DEFAULT_VIEW)).toBe("/sessions");
    expect(parse("").view).toEqual(DEFAULT_VIEW);
  });

  it("accepts the record form Next passes to a page (first value of a repeated key)", () => {
    const { view } = parseSessionsView({ status: ["active", "failed"], q: "  login  " });
    expect(view.status).toBe("active");
    expect(view.q).toBe("login");
  });

  it("ignores what is invalid and names the parameter and the rule", () => {
    const { view, problems } = parse(`status=done&source=github&blocked=maybe&from=2026-02-30&to=yesterday&order=random&q=${"x".repeat(201)}`);
    expect(view).toEqual(DEFAULT_VIEW);
    expect(problems).toEqual([
      "q: must be at most 200 characters (got 201)",
      'status: must be one of active, completed, failed (got "done")',
      'source: must be one of api, demo, bazinga, shots-on-goal (got "github")',
      'blocked: must be 1 or 0 (got "maybe")',
      'from: must be a date as YYYY-MM-DD (got "2026-02-30")',
      'to: must be a date as YYYY-MM-DD (got "yesterday")',
      'order: must be newest or oldest (got "random")',
    ]);
  });

  it("refuses a date range that ends before it starts, keeping the start", () => {
    const { view, problems } = parse("from=2026-10-10&to=2026-10-01");
    expect(view.from).toBe("2026-10-10");
    expect(view.to).toBeNull();
    expect(problems).toEqual(["to: must not be before from (2026-10-01 < 2026-10-10)"]);
  });

  it("turns the view into session.list's input: whole UTC days, the page size, the cursor", () => {
    const { view } = parse("q=x&status=active&blocked=1&from=2026-10-01&to=2026-10-31");
    expect(toListInput(view)).toEqual({
      search: "x",
      status: "active",
      hasBlocked: true,
      startedFrom: new Date("2026-10-01T00:00:00.000Z"),
      startedTo: new Date("2026-10-31T23:59:59.999Z"),
      order: "newest",
      limit: PAGE_SIZE,
    });
    expect(toListInput(DEFAULT_VIEW)).toEqual({ order: "newest", limit: PAGE_SIZE });
  });

  it("changing a filter goes back to the first page; clearing filters keeps the sort", () => {
    const paged = { ...DEFAULT_VIEW, order: "oldest" as const, after: "abc", page: 3 };
    expect(withFilters(paged, { status: "active" })).toEqual({ ...DEFAULT_VIEW, order: "oldest", status: "active" });
    expect(hasFilters(paged)).toBe(false);
    expect(hasFilters(withFilters(paged, { blocked: true }))).toBe(true);
  });
});

describe("paging through the address", () => {
  it("keeps the list's own cursor and the page number, and the pages it leads to do not overlap", async () => {
    const db = createMemoryDb();
    const base = Date.UTC(2026, 9, 1);
    // Equal start times on purpose: the cursor must break ties by id.
    await queryRun(
      db
        .insert(sessions)
        .values(Array.from({ length: 60 }, (_, i) => ({ id: `s_${String(i).padStart(3, "0")}`, startedAt: new Date(base + Math.floor(i / 3) * 60_000) }))),
    );

    let view = DEFAULT_VIEW;
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const result = await listSessions(db, toListInput(view));
      seen.push(...result.items.map((s) => s.id));
      if (!result.nextCursor) break;
      const href = sessionsHref({ ...view, after: result.nextCursor, page: page + 1 });
      const next = parseSessionsView(new URL(href, "http://x").searchParams);
      expect(next.problems).toEqual([]);
      expect(next.view.page).toBe(page + 1);
      view = next.view;
    }
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
    expect(seen[0]).toBe("s_059");
    expect(seen.at(-1)).toBe("s_000");
  });

  it("shows the first page, with a note, for a cursor the list never returned", () => {
    for (const after of ["not-a-cursor", btoa(JSON.stringify({ at: 1 })), "%%%"]) {
      const { view, problems } = parse(`after=${encodeURIComponent(after)}&page=4`);
      expect(view.after).toBeNull();
      expect(view.page).toBe(1);
      expect(problems).toEqual(["after: is not a cursor this list returned; showing the first page"]);
    }
  });
});
