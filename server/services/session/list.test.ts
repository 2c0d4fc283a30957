import { describe, expect, it, vi } from "vitest";
import { rows, setup } from "@/server/api/test-helpers";
import { generateDemoData } from "@/server/demo/generate";
import { type ListSessionsInput, listSessions } from "./list";

const FILTERS: ListSessionsInput[] = [];
for (const status of [undefined, "failed"] as const)
  for (const source of [undefined, "demo"] as const)
    for (const hasBlocked of [undefined, true])
      for (const range of [false, true])
        for (const search of [undefined, "JWT"])
          for (const order of ["newest", "oldest"] as const)
            FILTERS.push({
              status,
              source,
              hasBlocked,
              search,
              order,
              ...(range && { startedFrom: new Date("2026-10-01T00:00:00Z"), startedTo: new Date("2026-11-01T00:00:00Z") }),
            });

describe("session.list at scale: every filter and sort reads an index in order", () => {
  const f = setup();
  generateDemoData(f.db, { sessions: 60, seed: 3, now: new Date("2026-11-21T12:00:00Z"), logsPerSession: 1 });

  it.each(FILTERS.map((input) => [JSON.stringify(input), input] as const))("%s", (_name, input) => {
    const prepare = vi.spyOn(f.db.$client, "prepare");
    listSessions(f.db, { ...input, limit: 5 });
    const statement = prepare.mock.calls.map(([sql]) => sql).find((sql) => /from "sessions"/i.test(sql))!;
    prepare.mockRestore();
    const nulls = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => null);
    const plan = rows<{ detail: string }>(f.db, `explain query plan ${statement}`, ...nulls)
      .map((r) => r.detail)
      .join("\n");
    expect(plan).toMatch(/USING INDEX sessions_\w+_idx/);
    // Never a sort of the matching sessions: the page is the first rows of an index range.
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it("pages through status and source together in order, with nothing missed or repeated", () => {
    const expected = rows<{ id: string }>(f.db, "SELECT id FROM sessions WHERE status = 'failed' AND source = 'demo' ORDER BY started_at, id").map((r) => r.id);
    expect(expected.length).toBeGreaterThan(4);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = listSessions(f.db, { status: "failed", source: "demo", order: "oldest", limit: 3, cursor });
      seen.push(...page.items.map((s) => s.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
  });
});
