// The database a run's server writes to, per engine: a SQLite file in the run's folder, or a
// database on a throwaway PostgreSQL cluster of the run's own (test/support/pg-cluster.ts: never
// the system cluster, never a fixed port).
// flake-risks time: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
// flake-risks wait: the poll interval of a loop that awaits a condition
// flake-risks random: a fresh auth secret per run; no result depends on its value
import { randomBytes } from "node:crypto";
import path from "node:path";
import { startPgCluster } from "../support/pg-cluster";
import { sleep } from "./server";
import { type Engine, connectPg } from "./snapshot";

export interface CrashDatabase {
  engine: Engine;
  /** A SQLite file or a postgres:// URL: what the server, the local-mode writer and the checks open. */
  target: string;
  /** The database, for the log. */
  shown: string;
  /** What the server needs in its environment besides. */
  serverEnv: Record<string, string>;
  /** What the storage checks are, for the summary. */
  storageChecks: string;
  /** After a restart: what servers started before `since` (killed since) left behind in the database, if anything. */
  leftovers(since: number): Promise<string[]>;
  /** PostgreSQL: whether a server's session holds the writer lock right now (asked just before a kill, to count the kills that hit it). */
  writerLockHeld?: () => Promise<boolean>;
  /** Delete the cluster (a SQLite file stays in the run's folder, which the runner removes or keeps). */
  dispose(): void;
}

export function sqliteDatabase(dir: string): CrashDatabase {
  return {
    engine: "sqlite",
    target: path.join(dir, "proofgate.db"),
    shown: path.join(dir, "proofgate.db"),
    serverEnv: {},
    storageChecks: "integrity_check, foreign_key_check",
    // A killed process holds no lock on a SQLite file; whatever it left in the WAL is the next opener's to recover, which the checks read.
    leftovers: async () => [],
    dispose: () => {},
  };
}

/** The application name Proofgate's pools connect with (db/pg/client.ts), the servers' and the local-mode writer's alike. */
const PROOFGATE_APPLICATION = "proofgate";
/** How long a killed server's sessions may take to go: PostgreSQL ends one when it next reads its closed socket. */
const LEFTOVER_WAIT_MS = 10_000;

/**
 * A fresh database on a cluster of the run's own, with durability on (fsync, synchronous_commit,
 * full_page_writes; the tests' usual cluster runs with it off, for speed): as an operator runs it,
 * so an answer waits for the commit to be on disk. The run kills Proofgate's server, not
 * PostgreSQL, so what it proves does not rest on these; they keep the timings honest. amcheck is
 * created for the storage check (test/crash/snapshot.ts).
 */
export async function postgresDatabase(): Promise<CrashDatabase> {
  const cluster = await startPgCluster({ settings: { fsync: "on", synchronous_commit: "on", full_page_writes: "on" } });
  try {
    const target = await cluster.createDatabase("proofgate_crash");
    const admin = await connectPg(target);
    try {
      await admin.query("CREATE EXTENSION amcheck");
    } finally {
      await admin.end();
    }
    return {
      engine: "postgres",
      target,
      shown: `proofgate_crash on a throwaway cluster (port ${cluster.port}, ${cluster.dir})`,
      // `proofgate serve` on PostgreSQL requires the shared sign-in key (docs/postgresql.md); any 32 characters do for one run.
      serverEnv: { BETTER_AUTH_SECRET: randomBytes(24).toString("base64url") },
      storageChecks: "triggers and constraints in place, amcheck bt_index_check, no session of a killed server left",
      leftovers: (since) => leftoverSessions(target, since),
      writerLockHeld: () => writerLockHeld(target),
      dispose: () => cluster.stop(),
    };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

/** Whether a Proofgate session holds an advisory lock in the database: the writer lock (the migrations' is held only while a server starts). */
async function writerLockHeld(target: string): Promise<boolean> {
  const client = await connectPg(target);
  try {
    const { rows } = await client.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND a.application_name = $1) AS held`,
      [PROOFGATE_APPLICATION],
    );
    return rows[0]!.held;
  } finally {
    await client.end();
  }
}

interface Backend {
  pid: number;
  state: string | null;
  wait: string | null;
  locks: number;
  query: string | null;
}

/**
 * A SIGKILLed server cannot end its sessions: PostgreSQL must notice the closed connection, roll
 * back what was open and release its locks — the writer lock (pg_advisory_xact_lock) among them,
 * else the restarted server's writes would wait for it and fail after the lock timeout. Any
 * Proofgate session older than the running server must therefore be gone (within a short grace).
 */
export async function leftoverSessions(target: string, since: number, waitMs = LEFTOVER_WAIT_MS): Promise<string[]> {
  const client = await connectPg(target);
  try {
    const deadline = Date.now() + waitMs;
    for (;;) {
      // One statement per poll, outside any transaction: pg_stat_activity is read afresh each time.
      const { rows } = await client.query<Backend>(
        `SELECT a.pid, a.state, nullif(a.wait_event_type, 'Client') || ':' || a.wait_event AS wait, left(a.query, 80) AS query,
                (SELECT count(*) FROM pg_locks l WHERE l.pid = a.pid AND l.granted AND l.locktype = 'advisory') AS locks
           FROM pg_stat_activity a
          WHERE a.datname = current_database() AND a.application_name = $1 AND a.backend_start < to_timestamp($2 / 1000.0)`,
        [PROOFGATE_APPLICATION, since],
      );
      if (rows.length === 0) return [];
      if (Date.now() > deadline) {
        return rows.map(
          (b) =>
            `a PostgreSQL session of a killed server (pid ${b.pid}) is still there ${waitMs} ms after the restart: ${b.state ?? "?"}` +
            `${b.wait ? `, waiting on ${b.wait}` : ""}${b.locks > 0 ? `, holding ${b.locks} advisory locks` : ""}: ${b.query ?? ""}`,
        );
      }
      await sleep(100);
    }
  } finally {
    await client.end();
  }
}
