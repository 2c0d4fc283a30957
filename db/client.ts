import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { applyMigrations } from "./migrate";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };
/** A transaction handle: services accept either, so they compose inside a caller's transaction. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

export const DEFAULT_DB_PATH = "./data/proofgate.db";

export interface OpenOptions {
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  migrationsFolder?: string;
  readonly?: boolean;
}

/**
 * Open a Proofgate database: WAL (readers never block the writer), foreign keys on, a busy timeout
 * so concurrent writers from other processes wait instead of failing, migrations applied.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const memory = file === ":memory:";
  if (!memory && !options.readonly) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  sqlite.pragma("busy_timeout = 10000");
  if (!memory && !options.readonly) sqlite.pragma("journal_mode = WAL");
  // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last commits).
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  if (options.migrate ?? !options.readonly) applyMigrations(sqlite, options.migrationsFolder);
  return drizzle({ client: sqlite, schema });
}

/** A fresh, migrated, private in-memory database (tests). */
export function createMemoryDb(): Db {
  return openDatabase(":memory:");
}

export function resolveDbPath(explicit?: string): string {
  return explicit ?? process.env.PROOFGATE_DB ?? DEFAULT_DB_PATH;
}

let shared: Db | undefined;

/** The process-wide database, opened on first use so `next build` never touches it. */
export function getDb(): Db {
  shared ??= openDatabase(resolveDbPath());
  return shared;
}

/** Close the process-wide handle (tests, graceful shutdown). */
export function closeDb(): void {
  shared?.$client.close();
  shared = undefined;
}
