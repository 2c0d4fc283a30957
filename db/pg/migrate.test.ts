// flake-risks wait: holds the first migrator inside its transaction while the others arrive; later arrivals find the migration done, the same result
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate as drizzleMigrate } from "drizzle-orm/node-postgres/migrator";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase } from "@/test/support/pg-cluster";
import { closePgDatabase, openPgDatabase, type PgDb } from "./client";
import { applyPgMigrations, MIGRATIONS_LOCK } from "./migrate";

const adminUrl = inject("pgAdminUrl");

/** A migrations folder in drizzle-kit's format: meta/_journal.json and one .sql file per entry. */
function migrationsFolder(files: { tag: string; when: number; sql: string }[]): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pg-migrations-"));
  fs.mkdirSync(path.join(folder, "meta"));
  const entries = files.map((file, idx) => ({ idx, version: "7", when: file.when, tag: file.tag, breakpoints: true }));
  fs.writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify({ version: "7", dialect: "postgresql", entries }));
  for (const file of files) fs.writeFileSync(path.join(folder, `${file.tag}.sql`), file.sql);
  return folder;
}

const MIGRATIONS = [
  {
    tag: "0000_hits",
    when: 1_700_000_000_000,
    // The sleep holds the first migrator inside its transaction while the others arrive.
    sql: `CREATE TABLE "hits" ("id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, "by" text NOT NULL);\n--> statement-breakpoint\nSELECT pg_sleep(0.3);`,
  },
  { tag: "0001_hit", when: 1_700_000_001_000, sql: `INSERT INTO "hits" ("by") VALUES (current_setting('application_name'));` },
  {
    tag: "0002_function",
    when: 1_700_000_002_000,
    sql: `CREATE FUNCTION "hit_count"() RETURNS bigint LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN (SELECT count(*) FROM "hits");\nEND;\n$$;`,
  },
];

describe.skipIf(!adminUrl)("applyPgMigrations (PostgreSQL)", () => {
  const folders: string[] = [];
  const open: PgDb[] = [];
  const fresh = async (applicationName?: string) => {
    const db = await openPgDatabase(await createTestDatabase(adminUrl!), { migrate: false, max: 2, applicationName });
    open.push(db);
    return db;
  };
  let folder: string;
  beforeAll(() => {
    folder = migrationsFolder(MIGRATIONS);
    folders.push(folder);
  });
  afterAll(async () => {
    await Promise.all(open.map(closePgDatabase));
    for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
  });

  it("six processes starting together apply each migration exactly once", async () => {
    const url = await createTestDatabase(adminUrl!);
    const first = await openPgDatabase(url, { migrate: false, max: 1 });
    open.push(first);
    const pools = await Promise.all(Array.from({ length: 6 }, (_, i) => openPgDatabase(url, { migrate: false, max: 1, applicationName: `migrator-${i}` })));
    open.push(...pools);
    const applied = await Promise.all(pools.map((db) => applyPgMigrations(db, folder)));

    // One of them applied all three; the others waited for its lock and then found nothing to do.
    expect(applied.sort()).toEqual([0, 0, 0, 0, 0, 3]);
    const hits = await first.$client.query(`SELECT "by" FROM "hits"`);
    expect(hits.rows).toHaveLength(1);
    const recorded = await first.$client.query(`SELECT hash, created_at FROM "drizzle"."__drizzle_migrations" ORDER BY id`);
    expect(recorded.rows.map((r) => Number(r.created_at))).toEqual(MIGRATIONS.map((m) => m.when));
    expect((await first.$client.query(`SELECT hit_count() AS n`)).rows[0].n).toBe(1);
  });

  it("applies only what is pending, and nothing twice", async () => {
    const db = await fresh();
    const partial = migrationsFolder(MIGRATIONS.slice(0, 2));
    folders.push(partial);
    expect(await applyPgMigrations(db, partial)).toBe(2);
    expect(await applyPgMigrations(db, partial)).toBe(0);
    expect(await applyPgMigrations(db, folder)).toBe(1);
    expect(await applyPgMigrations(db, folder)).toBe(0);
    expect((await db.$client.query(`SELECT count(*)::int AS n FROM "hits"`)).rows[0].n).toBe(1);
  });

  it("knows an up-to-date database without reading the migrations' SQL or waiting for the lock", async () => {
    const db = await fresh();
    expect(await applyPgMigrations(db, folder)).toBe(3);
    // The journal alone, its SQL files gone: up to date is decided from the journal's last entry.
    const journalOnly = migrationsFolder(MIGRATIONS);
    folders.push(journalOnly);
    for (const m of MIGRATIONS) fs.rmSync(path.join(journalOnly, `${m.tag}.sql`));
    // Another process holds the migrations lock (a migration under way elsewhere): no wait either.
    const holder = await db.$client.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtext($1))", [MIGRATIONS_LOCK]);
      expect(await applyPgMigrations(db, journalOnly)).toBe(0);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    // A journal with a newer entry than the database still reads the files, and says which is missing.
    const ahead = migrationsFolder([...MIGRATIONS, { tag: "0003_more", when: 1_700_000_003_000, sql: `SELECT 1;` }]);
    folders.push(ahead);
    fs.rmSync(path.join(ahead, "0003_more.sql"));
    await expect(applyPgMigrations(db, ahead)).rejects.toThrow(/0003_more\.sql/);
  });

  it("keeps drizzle's bookkeeping: the same table, hashes and timestamps as drizzle's own migrate()", async () => {
    const ours = await fresh();
    const theirs = await fresh();
    await applyPgMigrations(ours, folder);
    await drizzleMigrate(theirs, { migrationsFolder: folder });
    const read = async (db: PgDb) =>
      (await db.$client.query(`SELECT hash, created_at FROM "drizzle"."__drizzle_migrations" ORDER BY id`)).rows.map((r) => ({
        hash: r.hash,
        createdAt: Number(r.created_at),
      }));
    const expected = readMigrationFiles({ migrationsFolder: folder }).map((m) => ({ hash: m.hash, createdAt: m.folderMillis }));
    expect(await read(ours)).toEqual(expected);
    expect(await read(theirs)).toEqual(expected);
    // And each accepts the other's bookkeeping: nothing is applied again.
    expect(await applyPgMigrations(theirs, folder)).toBe(0);
    await drizzleMigrate(ours, { migrationsFolder: folder });
    expect((await ours.$client.query(`SELECT count(*)::int AS n FROM "hits"`)).rows[0].n).toBe(1);
  });

  it("a migration that fails applies nothing of the batch and records nothing", async () => {
    const db = await fresh();
    const broken = migrationsFolder([...MIGRATIONS.slice(0, 2), { tag: "0002_broken", when: 1_700_000_002_000, sql: `INSERT INTO "nowhere" VALUES (1);` }]);
    folders.push(broken);
    await expect(applyPgMigrations(db, broken)).rejects.toThrow(/relation "nowhere" does not exist/);
    expect((await db.$client.query(`SELECT to_regclass('hits') AS t`)).rows[0].t).toBeNull();
    // The bookkeeping table was created in the same transaction: it is gone too.
    expect((await db.$client.query(`SELECT to_regclass('drizzle.__drizzle_migrations') AS t`)).rows[0].t).toBeNull();
  });

  it("openPgDatabase applies the folder's migrations on open unless told not to", async () => {
    const url = await createTestDatabase(adminUrl!);
    const db = await openPgDatabase(url, { migrationsFolder: folder, max: 1 });
    open.push(db);
    expect((await db.$client.query(`SELECT count(*)::int AS n FROM "drizzle"."__drizzle_migrations"`)).rows[0].n).toBe(3);
  });
});
