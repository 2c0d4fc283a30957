import { spawnSync } from "node:child_process";
import { count, eq, sql, sum } from "drizzle-orm";
import { bigint, integer, numeric, pgTable, text } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase } from "@/test/support/pg-cluster";
import { closePgDatabase, isPostgresUrl, openPgDatabase, type PgDb, redactUrl } from "./client";

const adminUrl = inject("pgAdminUrl");

const rows = pgTable("rows", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  sessionId: text("session_id").notNull(),
  tokens: integer("tokens").notNull(),
  big: bigint("big", { mode: "number" }).notNull(),
  cost: numeric("cost").notNull(),
});

describe("postgres URLs", () => {
  it("selects the engine by scheme", () => {
    expect(isPostgresUrl("postgres://u@h/db")).toBe(true);
    expect(isPostgresUrl("postgresql://u@h:5432/db?sslmode=disable")).toBe(true);
    expect(isPostgresUrl("./data/proofgate.db")).toBe(false);
    expect(isPostgresUrl(":memory:")).toBe(false);
  });
  it("never shows a password in a message", async () => {
    expect(redactUrl("postgres://me:s3cret@db.example:5432/x")).toBe("postgres://me:***@db.example:5432/x");
    await expect(openPgDatabase("mysql://me:s3cret@h/x")).rejects.toThrow("not a postgres:// URL: mysql://me:***@h/x");
  });
});

describe.skipIf(!adminUrl)("openPgDatabase (PostgreSQL)", () => {
  let url: string;
  let db: PgDb;
  beforeAll(async () => {
    url = await createTestDatabase(adminUrl!);
    db = await openPgDatabase(url, { migrate: false, max: 2 });
    await db.execute(
      sql`CREATE TABLE rows (id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, session_id text NOT NULL, tokens integer NOT NULL, big bigint NOT NULL, cost numeric NOT NULL)`,
    );
    await db.insert(rows).values([
      { sessionId: "s1", tokens: 10, big: 5_000_000_000, cost: "1.25" },
      { sessionId: "s1", tokens: 20, big: 1, cost: "2.5" },
      { sessionId: "s2", tokens: 5, big: 2, cost: "0.125" },
    ]);
  });
  afterAll(async () => {
    if (db) await closePgDatabase(db);
  });

  it("ids, count(*), sum() and avg() come back as numbers (int8 and numeric parsers)", async () => {
    const inserted = await db.insert(rows).values({ sessionId: "s3", tokens: 1, big: 3, cost: "0" }).returning({ id: rows.id });
    expect(inserted).toEqual([{ id: 4 }]);
    await db.delete(rows).where(eq(rows.id, 4));

    // Through Drizzle's builder: an untyped sql<number>`sum()` is only as good as the driver's parsers.
    const [totals] = await db
      .select({
        n: count(),
        tokens: sql<number>`sum(${rows.tokens})`, // int4 sum → bigint
        big: sql<number>`sum(${rows.big})`, // int8 sum → numeric
        cost: sql<number>`sum(${rows.cost})`, // numeric
        mean: sql<number>`avg(${rows.tokens})`, // numeric
        maxId: sql<number>`max(${rows.id})`, // bigint
      })
      .from(rows);
    expect(totals).toEqual({ n: 3, tokens: 35, big: 5_000_000_003, cost: 3.875, mean: 35 / 3, maxId: 3 });

    // Through db.execute (raw SQL), as the analytics queries run.
    const raw = await db.execute<{ id: number; n: number }>(sql`select id, count(*) over () as n from rows order by id`);
    expect(raw.rows).toEqual([
      { id: 1, n: 3 },
      { id: 2, n: 3 },
      { id: 3, n: 3 },
    ]);

    // sum() mapped by Drizzle's own helper keeps its declared string type; the parser makes it a number underneath.
    const [{ total }] = (await db.select({ total: sum(rows.tokens) }).from(rows)) as [{ total: unknown }];
    expect(total).toBe("35");
  });

  // The child process may take its full 60 s on a loaded machine: the test waits longer than that.
  it("does not load pg (nor Drizzle's node-postgres driver) until a postgres:// database is opened", { timeout: 90_000 }, () => {
    const script = `
      import { createRequire } from "node:module";
      const require = createRequire(process.cwd() + "/package.json");
      const pgMain = require.resolve("pg");
      const loaded = () => Object.keys(require.cache).includes(pgMain);
      await import("./db/client.ts");
      await Promise.all(["client", "migrate", "write", "errors"].map((m) => import("./db/pg/" + m + ".ts")));
      const afterImport = loaded();
      const { openPgDatabase, closePgDatabase } = await import("./db/pg/client.ts");
      const db = await openPgDatabase(process.env.PG_URL, { migrate: false, max: 1 });
      const afterOpen = loaded();
      await closePgDatabase(db);
      console.log(JSON.stringify({ afterImport, afterOpen }));
    `;
    const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, PG_URL: url },
      timeout: 60_000,
    });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout.trim())).toEqual({ afterImport: false, afterOpen: true });
  });
});
