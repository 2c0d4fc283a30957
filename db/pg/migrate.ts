import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { latestInJournal } from "../migrate";
import type { PgDb } from "./client";

/** The advisory lock every migrating process takes first (`hashtext` of this name). */
export const MIGRATIONS_LOCK = "proofgate.migrations";
/** How long a process waits for another one's migrations before failing (applying the baseline takes about a second). */
const MIGRATIONS_WAIT = "5min";

/**
 * Apply the pending migrations of `migrationsFolder` (drizzle-kit's journal format) to a
 * PostgreSQL database, in one transaction, exactly once even when several processes start
 * together. Drizzle's own `migrate()` reads the last applied migration before its transaction and
 * without a lock (pg-core/dialect.js, drizzle issue #874), so two servers starting at once can both
 * apply the same migration. Here the transaction takes `pg_advisory_xact_lock(hashtext(
 * 'proofgate.migrations'))` before it reads `__drizzle_migrations`: the second process waits, then
 * sees what the first applied. Same bookkeeping as drizzle's (schema `drizzle`, table
 * `__drizzle_migrations (id serial, hash text, created_at bigint)`, the sha256 of each file and its
 * journal `when`), so a database migrated by either agrees with the other. Returns how many it applied.
 */
export async function applyPgMigrations(db: PgDb, migrationsFolder: string): Promise<number> {
  // The cheap check first, as on SQLite: the journal's last timestamp against the last one
  // recorded, without a transaction or the lock. Reading and hashing every migration's SQL
  // (1.2 MB) and the locked transaction (seven round trips) are only needed when something is to
  // be applied; a database that is up to date stays so, whatever another process does meanwhile.
  if ((await lastApplied(db)) >= latestInJournal(migrationsFolder)) return 0;
  const migrations = readMigrationFiles({ migrationsFolder });
  const client = await db.$client.connect();
  let applied = 0;
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    try {
      await client.query(`SET LOCAL lock_timeout = '${MIGRATIONS_WAIT}'`);
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [MIGRATIONS_LOCK]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "drizzle"`);
      await client.query(`CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`);
      const { rows } = await client.query<{ last: string | number | null }>(`SELECT max(created_at) AS last FROM "drizzle"."__drizzle_migrations"`);
      const last = Number(rows[0]?.last ?? 0);
      for (const migration of migrations) {
        if (migration.folderMillis <= last) continue;
        for (const statement of migration.sql) {
          if (statement.trim().length > 0) await client.query(statement);
        }
        await client.query(`INSERT INTO "drizzle"."__drizzle_migrations" ("hash", "created_at") VALUES ($1, $2)`, [migration.hash, migration.folderMillis]);
        applied += 1;
      }
      await client.query("COMMIT");
    } catch (error) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    }
  } finally {
    client.release(broken);
  }
  return applied;
}

/** The newest migration recorded in the database (0 before its first). */
async function lastApplied(db: PgDb): Promise<number> {
  const { rows } = await db.$client.query<{ present: boolean }>(`SELECT to_regclass('"drizzle"."__drizzle_migrations"') IS NOT NULL AS present`);
  if (!rows[0]?.present) return 0;
  const last = await db.$client.query<{ last: string | number | null }>(`SELECT max(created_at) AS last FROM "drizzle"."__drizzle_migrations"`);
  return Number(last.rows[0]?.last ?? 0);
}

/**
 * Where the PostgreSQL migrations are: `PROOFGATE_PG_MIGRATIONS`, db/migrations-pg beside this
 * module's folder (source checkout), beside a bundled CLI (`dist/../db/migrations-pg`), or under the
 * working directory (the Next.js server).
 */
export function findPgMigrationsFolder(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    process.env.PROOFGATE_PG_MIGRATIONS,
    path.join(here, "..", "migrations-pg"),
    path.join(here, "..", "db", "migrations-pg"),
    path.join(process.cwd(), "db", "migrations-pg"),
  ].filter((c): c is string => typeof c === "string" && c.length > 0);
  const found = candidates.find((c) => fs.existsSync(path.join(c, "meta", "_journal.json")));
  if (!found) throw new Error(`Cannot find the PostgreSQL migrations folder (looked in ${candidates.join(", ")}); set PROOFGATE_PG_MIGRATIONS`);
  return found;
}
