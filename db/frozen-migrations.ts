/**
 * Shipped migrations are history: every database that ran one keeps what it did, so its file must
 * never change afterwards (a change to a trigger or a table is a new migration). Each migration of
 * both journals (SQLite's db/migrations, PostgreSQL's db/migrations-pg) is held to the SHA-256 its
 * bytes had when it was recorded in db/frozen-migrations.json; db/frozen-migrations.test.ts fails
 * on a difference, and `npm run db:freeze` records new migrations (never changing a recorded one).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** The migration folders, relative to the project's root. */
export const MIGRATION_FOLDERS = ["db/migrations", "db/migrations-pg"] as const;
export const FROZEN_FILE = "db/frozen-migrations.json";

/** Every migration file a journal lists, relative to the root, in the journal's order. */
export function journalMigrations(root: string): string[] {
  return MIGRATION_FOLDERS.flatMap((folder) => {
    const journal = JSON.parse(fs.readFileSync(path.join(root, folder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
    return journal.entries.map((entry) => `${folder}/${entry.tag}.sql`);
  });
}

export const sha256Of = (file: string): string => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/** The recorded hashes: migration file (relative to the root) → SHA-256 of its bytes. */
export function frozenHashes(root: string): Record<string, string> {
  const file = path.join(root, FROZEN_FILE);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, string>) : {};
}

export interface FreezeReport {
  /** Migrations whose bytes differ from their recorded hash: shipped history that was edited. */
  changed: string[];
  /** Recorded migrations no journal lists any more (or whose file is gone). */
  missing: string[];
  /** Migrations of a journal with no recorded hash yet. */
  unrecorded: string[];
}

/** How the migration files stand against the recorded hashes. */
export function freezeReport(root: string): FreezeReport {
  const frozen = frozenHashes(root);
  const listed = journalMigrations(root);
  const exists = (file: string) => fs.existsSync(path.join(root, file));
  return {
    changed: listed.filter((file) => file in frozen && exists(file) && sha256Of(path.join(root, file)) !== frozen[file]),
    missing: Object.keys(frozen).filter((file) => !listed.includes(file) || !exists(file)),
    unrecorded: listed.filter((file) => !(file in frozen)),
  };
}
