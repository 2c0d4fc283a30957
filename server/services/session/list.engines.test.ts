/** session.list on both engines (issue 21); its query-plan checks stay SQLite-only. */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { type Fixture, callerFor, setup } from "@/test/support/api-helpers";
import { operatorActor } from "@/server/domain/actors";
import { handleClaudeCodeHook } from "@/server/services/runtime/hook";
import { sessionStart, stop } from "@/server/services/runtime/test-payloads";
import { type ListSessionsInput, listSessions } from "./list";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { demoLedgerFactory } from "@/test/support/demo-ledger";
import { rowsLikeSqlite } from "@/test/support/rows";

const freshLedger = ledgerFactory();
const demoLedger = demoLedgerFactory();

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

describeEngines("session.list", (engine) => {
  describe("session.list at scale: every filter and sort reads an index in order", async () => {
    const f = setup(await demoLedger(engine, { sessions: 60, seed: 3, now: new Date("2026-11-21T12:00:00Z"), logsPerSession: 1 }));

    // SQLite only: reads SQLite's query plans (EXPLAIN QUERY PLAN) of the statements better-sqlite3 prepared.
    (engine === "sqlite" ? it : it.skip).each(FILTERS.map((input) => [JSON.stringify(input), input] as const))("%s", async (_name, input) => {
      const prepare = vi.spyOn(f.db.$client, "prepare");
      await listSessions(f.db, { ...input, limit: 5 });
      const statement = prepare.mock.calls.map(([sql]) => sql).find((sql) => /from "sessions"/i.test(sql))!;
      prepare.mockRestore();
      const nulls = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => null);
      const plan = (await rowsLikeSqlite<{ detail: string }>(f.db, `explain query plan ${statement}`, ...nulls)).map((r) => r.detail).join("\n");
      if (input.search) {
        // "JWT" is in fewer than 200 of these sessions: the trigram index finds them, and only they are sorted.
        expect(plan).toMatch(/SCAN sessions_search VIRTUAL TABLE/);
        expect(plan).not.toMatch(/SCAN sessions\b/);
        return;
      }
      expect(plan).toMatch(/USING INDEX sessions_\w+_idx/);
      // Never a sort of the matching sessions: the page is the first rows of an index range.
      expect(plan).not.toMatch(/TEMP B-TREE/);
    });

    it("pages through status and source together in order, with nothing missed or repeated", async () => {
      const expected = (
        await rowsLikeSqlite<{ id: string }>(f.db, "SELECT id FROM sessions WHERE status = 'failed' AND source = 'demo' ORDER BY started_at, id")
      ).map((r) => r.id);
      expect(expected.length).toBeGreaterThan(4);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await listSessions(f.db, { status: "failed", source: "demo", order: "oldest", limit: 3, cursor });
        seen.push(...page.items.map((s) => s.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(expected);
    });
  });

  describe("session.list search: a substring of the id or the requirements, case-insensitive", () => {
    let f: Fixture;
    const REQUIREMENTS: Record<string, string> = {
      ab: "Rotate the signing keys",
      "sess-upload-1": "Make the UPLOAD retry idempotent",
      "sess-quote": 'Parse "quoted" flags and 100% of the_underscored names',
    };
    // 230 sessions share a phrase: more than the index answers alone, so this search walks the list's order.
    for (let i = 0; i < 230; i++) REQUIREMENTS[`bulk-${String(i).padStart(3, "0")}`] = `Common phrase number ${i}`;

    beforeAll(async () => {
      f = setup(await freshLedger(engine));
      for (const [id, requirements] of Object.entries(REQUIREMENTS)) await f.as("orchestrator").session.create({ id, requirements });
    });

    /** What the list must return: a case-insensitive substring match over every session, newest first. */
    async function expected(search: string): Promise<string[]> {
      const needle = search.toLowerCase();
      return (
        await rowsLikeSqlite<{ id: string; requirements: string | null }>(f.db, "SELECT id, requirements FROM sessions ORDER BY started_at DESC, id DESC")
      )
        .filter((r) => r.id.toLowerCase().includes(needle) || (r.requirements ?? "").toLowerCase().includes(needle))
        .map((r) => r.id);
    }

    async function all(search: string): Promise<string[]> {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await listSessions(f.db, { search, limit: 50, cursor });
        ids.push(...page.items.map((s) => s.id));
        cursor = page.nextCursor;
      } while (cursor);
      return ids;
    }

    it.each([
      ["a rare word, in another case", "upload"],
      ["part of an id", "ss-uplo"],
      ["a phrase most sessions hold (walks the order index)", "common phrase"],
      ["a search nothing matches", "no session says this"],
      ["two characters (too short for trigrams)", "ab"],
      ["double quotes", '"quoted"'],
      ["LIKE's wildcards, taken literally", "100% of the_"],
      ["a wildcard that would match anything with LIKE", "%_%"],
    ])("%s: %s", async (_name, search) => {
      const want = await expected(search);
      expect(await all(search)).toEqual(want);
    });

    it("finds the sessions of a rare search and of a common one (the test above is not vacuous)", async () => {
      expect(await all("upload")).toEqual(["sess-upload-1"]);
      expect(await all("common phrase")).toHaveLength(230);
      expect(await all("100% of the_")).toEqual(["sess-quote"]);
      expect(await all("%_%")).toEqual([]);
      expect(await all("no session says this")).toEqual([]);
    });
  });

  describe("session.list flags the sessions with a stop let through while the gate rejected", () => {
    it("counts runtime.stop_unverified per session of the page, from the (type, id) index", async () => {
      const f = setup(await freshLedger(engine));
      const hook = { db: f.db, actor: operatorActor("claude") };
      for (const [runtime, session] of [
        ["rt-a", "a"],
        ["rt-b", "b"],
      ] as const) {
        await handleClaudeCodeHook(hook, sessionStart("startup", runtime));
        await callerFor(f.db, hook.actor, { runtimeSession: { runtime: "claude-code", externalId: runtime } }).session.create({ id: session });
      }
      await f.as("orchestrator").session.create({ id: "c" });
      // a: held, then through twice (the cap of 1, then another hook's continuation); b: held only.
      for (const active of [false, true, true]) await handleClaudeCodeHook(hook, stop(active, "rt-a"), { maxBlocks: 1 });
      await handleClaudeCodeHook(hook, stop(false, "rt-b"), { maxBlocks: 1 });
      expect((await listSessions(f.db)).unverifiedStops).toEqual({ a: 2 });
      // Only the page's sessions are looked up.
      expect(await listSessions(f.db, { limit: 1, order: "oldest" })).toMatchObject({ items: [{ id: "a" }], unverifiedStops: { a: 2 } });
      expect((await listSessions(f.db, { limit: 1 })).unverifiedStops).toEqual({});

      // The query plan is SQLite's (EXPLAIN QUERY PLAN of the statement better-sqlite3 prepared).
      if (engine !== "sqlite") return;
      const prepare = vi.spyOn(f.db.$client, "prepare");
      await listSessions(f.db);
      const statement = prepare.mock.calls.map(([sql]) => sql).find((sql) => /from events/i.test(sql))!;
      prepare.mockRestore();
      const plan = (
        await rowsLikeSqlite<{ detail: string }>(
          f.db,
          `explain query plan ${statement}`,
          ...Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => null),
        )
      )
        .map((r) => r.detail)
        .join("\n");
      expect(plan).toMatch(/USING (COVERING )?INDEX events_type_id_idx/);
    });
  });
});
