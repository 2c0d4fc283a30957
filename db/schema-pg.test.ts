// flake-risks time: brackets a timestamp the code takes itself; fails only if the wall clock steps backwards mid-test
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type Column, eq, getTableColumns, is, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { getTableConfig as pgTableConfig, PgTable } from "drizzle-orm/pg-core";
import { check, getTableConfig as sqliteTableConfig, integer, sqliteTable, SQLiteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { differences, generatePgSchema, loadAreas, PG_NOW_MS } from "@/scripts/gen-pg-schema";
import { applyMigrations } from "./migrate";
import * as pgSchema from "./schema-pg";
import * as sqliteSchema from "./schema";
import { createTestDatabase } from "@/test/support/pg-cluster";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PG_MIGRATIONS = path.join(ROOT, "db", "migrations-pg");
const STALE =
  "db/schema-pg is not what db/schema generates: run `npm run db:pg-schema`, then `npx drizzle-kit generate --config=drizzle.pg.config.ts --name=<what>`";

const sqliteTables = Object.entries(sqliteSchema as Record<string, unknown>).filter((e): e is [string, SQLiteTable] => is(e[1], SQLiteTable));
const pgTables = new Map(Object.entries(pgSchema as Record<string, unknown>).filter((e): e is [string, PgTable] => is(e[1], PgTable)));
const twinOf = (exportName: string) => pgTables.get(exportName) ?? expect.fail(`db/schema-pg has no table ${exportName}: ${STALE}`);

describe("the generated PostgreSQL twins (db/schema-pg)", () => {
  it("are exactly what `npm run db:pg-schema` writes from db/schema", async () => {
    const diff = differences(await generatePgSchema(await loadAreas()));
    expect(diff, `${STALE}\n${diff.join("\n")}`).toEqual([]);
  });

  it("have no change that the PostgreSQL migrations lack (drizzle-kit generate --config=drizzle.pg.config.ts)", async () => {
    const { generateDrizzleJson, generateMigration } = await import("drizzle-kit/api");
    const journal = JSON.parse(fs.readFileSync(path.join(PG_MIGRATIONS, "meta", "_journal.json"), "utf8")) as { entries: { idx: number }[] };
    const last = String(journal.entries.at(-1)!.idx).padStart(4, "0");
    const snapshot = JSON.parse(fs.readFileSync(path.join(PG_MIGRATIONS, "meta", `${last}_snapshot.json`), "utf8")) as Parameters<typeof generateMigration>[0];
    const pending = await generateMigration(snapshot, generateDrizzleJson(pgSchema as Record<string, unknown>));
    expect(pending, "run `npx drizzle-kit generate --config=drizzle.pg.config.ts --name=<what>`").toEqual([]);
  });

  it("mirror every SQLite table: columns (order, nullability), keys, foreign keys, indexes and checks", () => {
    expect([...pgTables.keys()].sort()).toEqual(sqliteTables.map(([name]) => name).sort());
    for (const [exportName, table] of sqliteTables) {
      const lite = sqliteTableConfig(table);
      const twin = pgTableConfig(twinOf(exportName));
      const label = `${exportName} (${lite.name})`;
      expect(twin.name, label).toBe(lite.name);
      const columns = (cs: Column[]) => cs.map((c) => ({ name: c.name, notNull: c.notNull, primary: c.primary, unique: c.isUnique ? c.uniqueName : null }));
      expect(columns(twin.columns), label).toEqual(columns(lite.columns));
      // The TypeScript keys too, so the services' property names work on either table.
      expect(Object.keys(getTableColumns(twinOf(exportName))), label).toEqual(Object.keys(getTableColumns(table)));
      expect(twin.primaryKeys.map((k) => [k.getName(), k.columns.map((c) => c.name)])).toEqual(
        lite.primaryKeys.map((k) => [k.getName(), k.columns.map((c) => c.name)]),
      );
      const fks = (
        list: { getName(): string; onDelete?: string; reference(): { columns: Column[]; foreignColumns: Column[] } }[],
        nameOf: (c: Column) => string,
      ) =>
        list
          .map((fk) => {
            const r = fk.reference();
            return `${fk.getName()}: ${r.columns.map((c) => c.name)} → ${nameOf(r.foreignColumns[0]!)}(${r.foreignColumns.map((c) => c.name)}) on delete ${fk.onDelete ?? "no action"}`;
          })
          .sort();
      expect(
        fks(twin.foreignKeys, (c) => pgTableConfig(c.table as PgTable).name),
        label,
      ).toEqual(fks(lite.foreignKeys, (c) => sqliteTableConfig(c.table as SQLiteTable).name));
      const indexNames = [...twin.indexes.map((i) => i.config.name), ...twin.uniqueConstraints.map((u) => u.getName())].sort();
      expect(indexNames, label).toEqual(lite.indexes.map((i) => i.config.name).sort());
      expect(twin.checks.map((c) => c.name).sort(), label).toEqual(lite.checks.map((c) => c.name).sort());
    }
  });

  it("rewrite the non-portable SQLite shapes and refuse anything else non-portable, naming the table and column", async () => {
    const nowMs = sql`(cast(round((julianday('now') - 2440587.5) * 86400000) as integer))`;
    const probe = sqliteTable(
      "probe",
      {
        id: integer("id").primaryKey({ autoIncrement: true }),
        kind: text("kind"),
        n: integer("n"),
        at: integer("at", { mode: "timestamp_ms" }).notNull().default(nowMs),
      },
      (t) => [
        uniqueIndex("probe_key_idx").on(t.id, sql`ifnull(${t.kind}, char(0))`, sql`ifnull(${t.n}, -1)`),
        check("probe_kind_check", sql`${t.kind} IS NOT 'x' and ${t.n} IS NOT NULL and ${t.id} IS ${t.n} and ${t.kind} <> 'is not glob(x)'`),
      ],
    );
    const files = await generatePgSchema([{ name: "probe", exports: { probe }, source: "" }]);
    const probeFile = files.get("db/schema-pg/probe.ts")!;
    expect(probeFile).toContain(`at: bigint("at", { mode: "number" }).notNull().default(nowMs)`);
    expect(files.get("db/schema-pg/columns.ts")).toContain(PG_NOW_MS);
    expect(probeFile).toContain(`unique("probe_key_idx").on(t.id, t.kind, t.n).nullsNotDistinct()`);
    expect(probeFile).toContain(
      "sql`${t.kind} IS DISTINCT FROM 'x' and ${t.n} IS NOT NULL and ${t.id} IS NOT DISTINCT FROM ${t.n} and ${t.kind} <> 'is not glob(x)'`",
    );
    expect(probeFile).not.toMatch(/ifnull|julianday/);

    const datetime = sqliteTable("odd", { id: text("id").primaryKey(), at: text("at").default(sql`(datetime('now'))`) });
    await expect(generatePgSchema([{ name: "odd", exports: { datetime }, source: "" }])).rejects.toThrow(/odd\.at .*SQL default \(datetime\('now'\)\)/);
    const flag = sqliteTable("odd", { id: text("id").primaryKey(), on: integer("on", { mode: "boolean" }) }, (t) => [check("odd_on_check", sql`${t.on} = 1`)]);
    await expect(generatePgSchema([{ name: "odd", exports: { flag }, source: "" }])).rejects.toThrow(
      /odd\.check odd_on_check .*boolean column compared with 0\/1/,
    );
    const glob = sqliteTable("odd", { id: text("id").primaryKey() }, (t) => [check("odd_glob_check", sql`${t.id} glob '[a-z]*'`)]);
    await expect(generatePgSchema([{ name: "odd", exports: { glob }, source: "" }])).rejects.toThrow(/odd\.check odd_glob_check .*SQLite-only SQL/);
  });
});

// The pg project's throwaway cluster (test/support/pg-cluster.ts); without PostgreSQL its globalSetup says so and this half skips.
const adminUrl = inject("pgAdminUrl");
const template = inject("pgTemplate");

describe.skipIf(!adminUrl)("the PostgreSQL migrations (db/migrations-pg, from 0000_baseline.sql) on a copy of the pg project's migrated template", () => {
  let client: pg.Client;
  let lite: Database.Database;
  const q = async <T>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as T[];

  beforeAll(async () => {
    if (!template) throw new Error("the pg project's globalSetup made no migrated template (db/migrations-pg/meta/_journal.json missing?)");
    client = new pg.Client({ connectionString: await createTestDatabase(adminUrl!, undefined, { template }) });
    await client.connect();
    lite = new Database(":memory:");
    applyMigrations(lite);
  }, 60_000);
  afterAll(async () => {
    await client?.end().catch(() => undefined);
    lite?.close();
  });

  it("were all applied, by applyPgMigrations (drizzle's bookkeeping: one row per journal entry)", async () => {
    const journal = JSON.parse(fs.readFileSync(path.join(PG_MIGRATIONS, "meta", "_journal.json"), "utf8")) as { entries: { when: number }[] };
    const applied = await q<{ created_at: string }>(`SELECT created_at FROM "drizzle"."__drizzle_migrations" ORDER BY id`);
    expect(applied.map((m) => Number(m.created_at))).toEqual(journal.entries.map((e) => e.when));
  });

  /** The PostgreSQL type the plan's storage table gives a SQLite column (docs/plans/postgresql.md §2). */
  const expectedType = (column: Column, declared: string) =>
    column.columnType === "SQLiteBoolean" ? "boolean" : ({ INTEGER: "bigint", TEXT: "text", REAL: "double precision" } as Record<string, string>)[declared];
  /** A default as a comparable value: `now` for nowMs on either engine, else the literal. */
  const defaultOf = (value: string | null) => {
    if (value === null) return null;
    if (/julianday\('now'\)|statement_timestamp\(\)/.test(value)) return "now";
    return value.replace(/::(text|bigint|double precision)$/, "").replace(/^'(.*)'$/, "$1");
  };

  it("creates every table with the SQLite columns: names, order, types, nullability, defaults, identity ids", async () => {
    for (const [, table] of sqliteTables) {
      const config = sqliteTableConfig(table);
      const byName = new Map(config.columns.map((c) => [c.name, c]));
      const sqliteColumns = lite.pragma(`table_xinfo("${config.name}")`) as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }[];
      const pgColumns = await q<{ column_name: string; data_type: string; is_nullable: string; column_default: string | null; is_identity: string }>(
        `SELECT column_name, data_type, is_nullable, column_default, is_identity FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [config.name],
      );
      expect(sqliteColumns.map((c) => c.name).sort(), config.name).toEqual(config.columns.map((c) => c.name).sort());
      expect(
        pgColumns.map((c) => ({
          name: c.column_name,
          type: c.data_type,
          notNull: c.is_nullable === "NO",
          default: defaultOf(c.column_default),
          identity: c.is_identity === "YES",
        })),
        config.name,
      ).toEqual(
        // In the declaration order: SQLite appends ALTER TABLE's columns (tasks, success_criteria, events), the baseline creates them in place.
        config.columns.map(({ name }) => {
          const c = sqliteColumns.find((s) => s.name === name) ?? expect.fail(`${config.name}.${name} is not in the migrated SQLite database`);
          const column = byName.get(c.name)!;
          const identity = c.pk > 0 && c.type === "INTEGER" && config.primaryKeys.length === 0;
          return {
            name: c.name,
            type: expectedType(column, c.type),
            notNull: c.notnull === 1 || c.pk > 0,
            default: defaultOf(c.dflt_value),
            identity,
          };
        }),
      );
    }
  });

  it("has the SQLite indexes (same names, tables, columns, uniqueness, partial or not), checks, keys and foreign keys", async () => {
    const names = sqliteTables.map(([, t]) => sqliteTableConfig(t).name);
    const sqliteIndexes = new Map<string, unknown>();
    const sqliteChecks: string[] = [];
    const sqliteFks: string[] = [];
    const sqlitePks: string[] = [];
    for (const table of names) {
      for (const index of lite.pragma(`index_list("${table}")`) as { name: string; unique: number; partial: number; origin: string }[]) {
        if (index.origin === "pk") continue;
        const columns = (lite.pragma(`index_info("${index.name}")`) as { name: string | null }[]).map((c) => c.name);
        sqliteIndexes.set(index.name, {
          table,
          unique: index.unique === 1,
          partial: index.partial === 1,
          columns: columns.includes(null) ? "expression" : columns,
        });
      }
      const ddl = (lite.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) as { sql: string }).sql;
      sqliteChecks.push(...[...ddl.matchAll(/CONSTRAINT "(\w+)" CHECK/g)].map((m) => `${table}.${m[1]}`));
      for (const fk of lite.pragma(`foreign_key_list("${table}")`) as { table: string; from: string; to: string; on_delete: string }[])
        sqliteFks.push(`${table}.${fk.from} → ${fk.table}.${fk.to} on delete ${fk.on_delete.toLowerCase()}`);
      const pk = (lite.pragma(`table_info("${table}")`) as { name: string; pk: number }[]).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      if (pk.length) sqlitePks.push(`${table}(${pk.map((c) => c.name)})`);
    }

    const pgIndexes = await q<{ name: string; table: string; unique: boolean; partial: boolean; nnd: boolean; columns: (string | null)[] }>(
      `SELECT i.relname AS name, t.relname AS table, x.indisunique AS unique, x.indpred IS NOT NULL AS partial, x.indnullsnotdistinct AS nnd,
              array(SELECT a.attname::text FROM unnest(x.indkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n ORDER BY k.o) AS columns
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace
        WHERE s.nspname = 'public' AND NOT x.indisprimary`,
    );
    // PostgreSQL's own: the sessions search index (0002_session_search.sql) stands for SQLite's FTS5 table, checked below.
    expect(pgIndexes.filter((i) => !sqliteIndexes.has(i.name)).map((i) => i.name)).toEqual(["sessions_search_idx"]);
    const pgIndexMap = new Map(
      pgIndexes
        .filter((i) => i.name !== "sessions_search_idx")
        .map((i) => [i.name, { table: i.table, unique: i.unique, partial: i.partial, columns: i.nnd ? "expression" : i.columns } as unknown]),
    );
    expect(Object.fromEntries([...pgIndexMap].sort())).toEqual(Object.fromEntries([...sqliteIndexes].sort()));
    // The one SQLite expression index (NULL keys as one group through ifnull) is UNIQUE NULLS NOT DISTINCT on PostgreSQL.
    expect(pgIndexes.filter((i) => i.nnd).map((i) => [i.name, i.columns])).toEqual([
      ["analytics_rollups_key_idx", ["figure", "day", "source", "agent", "model", "k1", "k2", "k3"]],
    ]);

    const constraints = await q<{
      table: string;
      name: string;
      type: string;
      columns: string[];
      ref: string | null;
      refcolumns: string[] | null;
      ondelete: string;
    }>(
      `SELECT t.relname AS table, c.conname AS name, c.contype AS type,
              array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
              r.relname AS ref,
              array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS refcolumns,
              c.confdeltype AS ondelete
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace s ON s.oid = t.relnamespace LEFT JOIN pg_class r ON r.oid = c.confrelid
        WHERE s.nspname = 'public'`,
    );
    const actions: Record<string, string> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };
    expect(
      constraints
        .filter((c) => c.type === "c")
        .map((c) => `${c.table}.${c.name}`)
        .sort(),
    ).toEqual(sqliteChecks.sort());
    expect(
      constraints
        .filter((c) => c.type === "f")
        .map((c) => `${c.table}.${c.columns[0]} → ${c.ref}.${c.refcolumns![0]} on delete ${actions[c.ondelete]}`)
        .sort(),
    ).toEqual(sqliteFks.sort());
    expect(
      constraints
        .filter((c) => c.type === "p")
        .map((c) => `${c.table}(${c.columns})`)
        .sort(),
    ).toEqual(sqlitePks.sort());
  });

  it("searches sessions through the pg_trgm index of 0002_session_search.sql (SQLite's FTS5 trigram table): an ILIKE '%…%' substring is an index scan", async () => {
    const [index] = await q<{ def: string }>(`SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'public' AND indexname = 'sessions_search_idx'`);
    expect(index?.def).toBe(
      "CREATE INDEX sessions_search_idx ON public.sessions USING gin ((((id || ' '::text) || COALESCE(requirements, ''::text))) gin_trgm_ops)",
    );
    await client.query("BEGIN");
    try {
      await client.query(
        `INSERT INTO sessions (id, requirements) SELECT 'search-' || g, 'requirement number ' || g || CASE WHEN g % 1000 = 0 THEN ' Needle' ELSE '' END FROM generate_series(1, 5000) g`,
      );
      await client.query("ANALYZE sessions");
      // At this size reading every row is still cheaper. With sequential scans (and whole-index walks of the
      // primary key) priced out, a Seq Scan is what the plan would still show if the search's expression were not the index's.
      await client.query("SET LOCAL enable_seqscan = off");
      await client.query("SET LOCAL enable_indexscan = off");
      const search = `SELECT id FROM sessions WHERE (id || ' ' || coalesce(requirements, '')) ILIKE $1`;
      const [plan] = await q<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${search}`, ["%needle%"]);
      expect(JSON.stringify(plan!["QUERY PLAN"])).toContain(`"Index Name":"sessions_search_idx"`);
      expect((await q<{ id: string }>(search, ["%needle%"])).map((r) => r.id).sort()).toEqual([
        "search-1000",
        "search-2000",
        "search-3000",
        "search-4000",
        "search-5000",
      ]);
      // The id is searched too.
      expect((await q<{ id: string }>(search, ["%ch-4242%"])).map((r) => r.id)).toEqual(["search-4242"]);
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it("takes a session and a task through drizzle-orm/node-postgres and reads them back with numbers for ids and times", async () => {
    const db = drizzle({ client });
    const before = Date.now();
    const [session] = await db.insert(pgSchema.sessions).values({ id: "s-pg-1", requirements: "twins" }).returning();
    const [task] = await db.insert(pgSchema.tasks).values({ sessionId: "s-pg-1", key: "t1", title: "First", resetRequested: true }).returning();
    const after = Date.now();
    expect(session).toMatchObject({ id: "s-pg-1", status: "active", source: "api", enforcement: "enforce", tasksTotal: 0, endedAt: null });
    expect(typeof session!.startedAt).toBe("number");
    expect(session!.startedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(session!.startedAt).toBeLessThanOrEqual(after + 1000);

    const [read] = await db.select().from(pgSchema.tasks).where(eq(pgSchema.tasks.id, task!.id));
    expect(read).toEqual(task);
    expect(read).toMatchObject({
      sessionId: "s-pg-1",
      key: "t1",
      status: "pending",
      resetRequested: true,
      securitySensitive: false,
      version: 1,
      reviewIteration: 1,
    });
    expect(Number.isInteger(read!.id) && read!.id > 0).toBe(true);
    expect(typeof read!.createdAt).toBe("number");
    expect(read!.createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(read!.updatedAt).toBe(read!.createdAt);

    const [second] = await db.insert(pgSchema.tasks).values({ sessionId: "s-pg-1", key: "t2", title: "Second" }).returning({ id: pgSchema.tasks.id });
    expect(second!.id).toBe(read!.id + 1);
  });

  it("refuses what the SQLite CHECKs and the NULLS NOT DISTINCT key refuse", async () => {
    const db = drizzle({ client });
    const codeOf = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (e: unknown) => e as { cause?: { code?: string; constraint?: string } },
      );
      return error && { code: error.cause?.code, constraint: error.cause?.constraint };
    };
    await db.insert(pgSchema.sessions).values({ id: "s-pg-2" });
    expect(await codeOf(db.insert(pgSchema.tasks).values({ sessionId: "s-pg-2", key: "bad", title: "Bad", status: "done" as "pending" }))).toEqual({
      code: "23514",
      constraint: "tasks_status_check",
    });
    expect(await codeOf(db.insert(pgSchema.tasks).values({ sessionId: "s-pg-2", key: "bad", title: "Bad", complexity: 11 }))).toEqual({
      code: "23514",
      constraint: "tasks_complexity_check",
    });
    expect(await codeOf(db.insert(pgSchema.tasks).values({ sessionId: "nobody", key: "x", title: "X" }))).toEqual({
      code: "23503",
      constraint: "tasks_session_id_sessions_id_fk",
    });
    expect(
      await db
        .select({ n: sql<number>`count(*)::int` })
        .from(pgSchema.tasks)
        .where(eq(pgSchema.tasks.sessionId, "s-pg-2")),
    ).toEqual([{ n: 0 }]);

    const row = { figure: "claim", day: 0, source: "api", agent: null, model: null, k1: null, k2: null, k3: null, n: 1 };
    await db.insert(pgSchema.analyticsRollups).values(row);
    expect(await codeOf(db.insert(pgSchema.analyticsRollups).values(row))).toEqual({ code: "23505", constraint: "analytics_rollups_key_idx" });
    await db.insert(pgSchema.analyticsRollups).values({ ...row, agent: "dev" });
  });
});
