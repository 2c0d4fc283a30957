/**
 * `--engine postgres`: a throwaway cluster (test/support/pg-cluster.ts) started with durability on,
 * as a production server runs, and the generated SQLite dataset copied into a fresh database of it
 * with `proofgate copy` (timed: the copy's own figure). The measurements then run against
 * `proofgate serve --database-url` on that database.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- no build bundles bench/; it reuses the tests' cluster harness rather than a copy
import { type PgCluster, startPgCluster } from "@/test/support/pg-cluster";
import type { Engine } from "./engine";
import { dropNote } from "./engine";
import { dropFileCache } from "./file-cache";
import { run, ROOT } from "./proc";

/**
 * The cluster's settings beyond initdb's defaults. The test clusters turn durability off; a
 * benchmark must not, so these are PostgreSQL's own defaults restated (every commit flushed to the
 * WAL on disk, full pages after a checkpoint). shared_buffers is raised from initdb's 128 MB, too
 * small to hold the 10,000-session ledger's hot pages (the usual advice is ~25% of memory; 1 GB of
 * this machine's 24 GB, which it shares with other jobs).
 */
export const BENCH_PG_SETTINGS: Record<string, string> = {
  fsync: "on",
  synchronous_commit: "on",
  full_page_writes: "on",
  shared_buffers: "1GB",
};

/** Settings reported with the results (what the cluster really runs with, read back with SHOW). */
const REPORTED = [
  "server_version",
  "fsync",
  "synchronous_commit",
  "full_page_writes",
  "wal_level",
  "shared_buffers",
  "work_mem",
  "effective_cache_size",
  "max_wal_size",
  "max_connections",
];

export interface CopyFigures {
  /** The whole `proofgate copy` process, spawn to exit. */
  ms: number;
  /** The copy's own time as it reports it (read, write, verify, commit). */
  copyMs: number;
  rows: number;
  tables: number;
  verified: boolean;
  /** The largest tables and their time, as the copy reports them. */
  slowestTables: { table: string; rows: number; milliseconds: number }[];
}

export interface PostgresEngine extends Engine {
  copy: CopyFigures;
  /** The cluster's settings (SHOW), and the database's size after the copy. */
  settings: Record<string, string>;
  databaseBytes: number;
}

/** The part of `proofgate copy --json`'s answer used here (server/services/copy/copy.ts, CopyResult). */
interface CopyJson {
  rows: number;
  verified: boolean;
  milliseconds: number;
  tables: { table: string; rows: number; milliseconds: number }[];
}

/**
 * Start the cluster (BENCH_PG_SETTINGS, then `overrides`: `--pg-setting name=value`), copy
 * `sqliteFile` into database `proofgate_bench`, and report what was done.
 */
export async function startPostgresEngine(sqliteFile: string, overrides: Record<string, string> = {}): Promise<PostgresEngine> {
  const cluster = await startPgCluster({ settings: { ...BENCH_PG_SETTINGS, ...overrides } });
  try {
    const url = await cluster.createDatabase("proofgate_bench");
    const copy = await copyInto(sqliteFile, url);
    // The copy's own advice: the servers of the copied ledger use the key file's key (docs/postgresql.md).
    const secretFile = `${sqliteFile}.secret`;
    const secret = fs.existsSync(secretFile) ? fs.readFileSync(secretFile, "utf8").trim() : randomBytes(32).toString("base64url");
    const { settings, databaseBytes } = await inspect(url);
    let scratchCount = 0;
    return {
      name: "postgres",
      ledger: url,
      copy,
      settings,
      databaseBytes,
      warmSkipped: "SQLite-only (it reads the database file and its WAL); the cluster keeps its hot pages in its own shared_buffers",
      dropCaches: () => Promise.resolve(coldRestart(cluster)),
      scratch: (name) => cluster.createDatabase(`${name.replace(/[^a-z0-9_]/g, "_")}_${++scratchCount}`),
      serverEnv: { BETTER_AUTH_SECRET: secret },
      close: () => cluster.stop(),
    };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

async function copyInto(sqliteFile: string, url: string): Promise<CopyFigures> {
  const cli = path.join(ROOT, "bin", "proofgate.mjs");
  const result = await run(process.execPath, [cli, "copy", "--from", sqliteFile, "--to", url, "--json"], {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.code !== 0) throw new Error(`proofgate copy exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  const out = JSON.parse(result.stdout) as CopyJson;
  const tables = out.tables.map(({ table, rows, milliseconds }) => ({ table, rows, milliseconds }));
  return {
    ms: Math.round(result.ms),
    copyMs: out.milliseconds,
    rows: out.rows,
    tables: tables.length,
    verified: out.verified,
    slowestTables: [...tables].sort((a, b) => b.milliseconds - a.milliseconds).slice(0, 5),
  };
}

async function inspect(url: string): Promise<{ settings: Record<string, string>; databaseBytes: number }> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const settings: Record<string, string> = {};
    for (const name of REPORTED) {
      const row = (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0];
      settings[name] = row ? String(Object.values(row)[0]) : "?";
    }
    const size = await client.query<{ bytes: string }>("SELECT pg_database_size(current_database())::text AS bytes");
    return { settings, databaseBytes: Number(size.rows[0]?.bytes ?? 0) };
  } finally {
    await client.end();
  }
}

/**
 * A cold read on PostgreSQL: its own cache (shared_buffers) empties only when the cluster restarts,
 * then the operating system's file cache under it is dropped. Stricter than SQLite's cold figure, whose
 * server keeps its small page cache (2 MB per connection): here nothing of the ledger stays in memory.
 */
function coldRestart(cluster: PgCluster): string {
  cluster.restart();
  const files = listFiles(path.join(cluster.dir, "data"));
  const how = dropFileCache(files);
  return `PostgreSQL restarted (pg_ctl restart -m fast: shared_buffers emptied, the server's pooled connections dropped and reopened on the next request), then ${dropNote(how, "the cluster's data files'")}`;
}

function listFiles(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, withFileTypes: true }).flatMap((entry) => (entry.isFile() ? [path.join(entry.parentPath, entry.name)] : []));
}
