import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";

/**
 * Apply the committed migrations in db/migrations. Same bookkeeping table as drizzle's migrator
 * (`__drizzle_migrations`), but the check of what is applied happens inside `BEGIN IMMEDIATE`, so
 * several processes opening a fresh file at once (server, CLI, importer) apply each migration
 * exactly once instead of racing.
 */
export function applyMigrations(sqlite: Database.Database, migrationsFolder = findMigrationsFolder()): number {
  // The cheap check first: the journal's last timestamp against the last one recorded. Reading and
  // hashing every migration's SQL (~110 KB, sha256) is only needed when something is to be applied;
  // it was ~10 ms of every CLI call and every server start.
  if (lastApplied(sqlite) >= latestInJournal(migrationsFolder)) return 0;
  const migrations = readMigrations(migrationsFolder);

  let applied = 0;
  sqlite.exec("BEGIN IMMEDIATE");
  try {
    sqlite.exec(`CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
    const done = lastApplied(sqlite);
    const record = sqlite.prepare(`INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)`);
    for (const migration of migrations) {
      if (migration.folderMillis <= done) continue;
      for (const statement of migration.sql) {
        if (statement.trim().length > 0) sqlite.exec(statement);
      }
      record.run(migration.hash, migration.folderMillis);
      applied += 1;
    }
    sqlite.exec("COMMIT");
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
    throw error;
  }
  return applied;
}

interface Migration {
  sql: string[];
  folderMillis: number;
  hash: string;
}

/**
 * The folder's migrations as drizzle's `readMigrationFiles` reads them (the same statements, the
 * same `folderMillis` and sha256 `hash`, so databases migrated by either agree; migrate.test.ts
 * compares the two). Here rather than drizzle's module so that node:crypto (a dozen internal
 * modules) loads only when a migration is pending, not on every CLI call.
 */
function readMigrations(migrationsFolder: string): Migration[] {
  const crypto = process.getBuiltinModule("node:crypto");
  return readJournal(migrationsFolder).entries.map((entry) => {
    const file = path.join(migrationsFolder, `${entry.tag}.sql`);
    let query: string;
    try {
      query = fs.readFileSync(file).toString();
    } catch {
      throw new Error(`No file ${file} found in ${migrationsFolder} folder`);
    }
    return { sql: query.split("--> statement-breakpoint"), folderMillis: entry.when, hash: crypto.createHash("sha256").update(query).digest("hex") };
  });
}

function readJournal(migrationsFolder: string): { entries: { tag: string; when: number }[] } {
  const file = path.join(migrationsFolder, "meta", "_journal.json");
  if (!fs.existsSync(file)) throw new Error(`Can't find meta/_journal.json file in ${migrationsFolder}`);
  return JSON.parse(fs.readFileSync(file, "utf8")) as { entries: { tag: string; when: number }[] };
}

/** The newest migration's timestamp in the folder's journal (what drizzle's `folderMillis` is). */
export function latestInJournal(migrationsFolder: string): number {
  return readJournal(migrationsFolder).entries.reduce((latest, entry) => Math.max(latest, entry.when), 0);
}

function lastApplied(sqlite: Database.Database): number {
  const table = sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`).get();
  if (!table) return 0;
  const row = sqlite.prepare(`SELECT max(created_at) AS last FROM "__drizzle_migrations"`).get() as { last: number | null };
  return Number(row.last ?? 0);
}

/**
 * Where the migrations are: `PROOFGATE_MIGRATIONS`, beside this module (source checkout), beside a
 * bundled CLI (`dist/../db/migrations`), or under the working directory (the Next.js server).
 */
export function findMigrationsFolder(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    process.env.PROOFGATE_MIGRATIONS,
    path.join(here, "migrations"),
    path.join(here, "..", "db", "migrations"),
    path.join(process.cwd(), "db", "migrations"),
  ].filter((c): c is string => typeof c === "string" && c.length > 0);
  const found = candidates.find((c) => fs.existsSync(path.join(c, "meta", "_journal.json")));
  if (!found) throw new Error(`Cannot find the migrations folder (looked in ${candidates.join(", ")}); set PROOFGATE_MIGRATIONS`);
  return found;
}
