/**
 * Runs `proofgate <args>` for the command tests and returns what a script would see: exit code,
 * stdout, stderr. In-process by default (the program that `main` builds, plus these commands, with
 * stdout and stderr captured; calls run one at a time); with PROOFGATE_CLI_TEST=spawn every call
 * is a child process of the built executable, as in server/cli/cli.test.ts (PROOFGATE_CLI_BIN
 * points at another build).
 *
 * The suites that run on both engines (`*.engines.test.ts`, under `describeEngines`) name their
 * ledger with `ledgerWorkspace(engine)`'s flag and read it back with `ledgerRows`/`ledgerCount`;
 * `workspace`, `rows` and `count` are the SQLite-file-only helpers of the others.
 */
// flake-risks time: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
// flake-risks wait: the poll interval of a loop that awaits a condition
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type SQL, sql } from "drizzle-orm";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { main } from "@/server/cli";
import { type Engine, pgAdminUrl } from "./engines";
import { PG_TEMPLATE, createTestDatabase } from "./pg-cluster";
import { rowsOf, tableCountsOf } from "./rows";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
}

/** A call left running (`events --follow`): read its output so far, then stop it as Ctrl-C would. */
export interface RunningCli {
  stdout(): string;
  interrupt(): void;
  done: Promise<CliResult>;
}

export const SPAWN = process.env.PROOFGATE_CLI_TEST === "spawn";
const BIN = process.env.PROOFGATE_CLI_BIN ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "proofgate.mjs");

let queue: Promise<unknown> = Promise.resolve();

/** Run one call to completion. */
export function cli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return start(args, options).done;
}

export function start(args: string[], options: CliOptions = {}): RunningCli {
  return SPAWN ? spawned(args, options) : inProcess(args, options);
}

function spawned(args: string[], options: CliOptions): RunningCli {
  const env = { ...process.env, ...options.env };
  delete env.PROOFGATE_CLI_TEST;
  for (const [key, value] of Object.entries(options.env ?? {})) if (value === undefined) delete env[key];
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { cwd: os.tmpdir(), env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { stdout: () => stdout, interrupt: () => child.kill("SIGINT"), done };
}

function inProcess(args: string[], options: CliOptions): RunningCli {
  let stdout = "";
  let stderr = "";
  let interrupt = () => undefined as void;
  const done = (async () => {
    await queue.catch(() => undefined);
    const saved = Object.fromEntries(Object.keys(options.env ?? {}).map((key) => [key, process.env[key]]));
    setEnv(options.env ?? {});
    const writeOut = process.stdout.write.bind(process.stdout);
    const writeErr = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
    const before = new Set(process.listeners("SIGINT"));
    // Ctrl-C, delivered only to the listener the command installed (never to the test runner's own).
    interrupt = () =>
      process
        .listeners("SIGINT")
        .filter((l) => !before.has(l))
        .forEach((l) => l("SIGINT"));
    try {
      return { code: await main(["node", "proofgate", ...args]), stdout, stderr };
    } finally {
      process.stdout.write = writeOut;
      process.stderr.write = writeErr;
      setEnv(saved);
    }
  })();
  queue = done;
  return { stdout: () => stdout, interrupt: () => interrupt(), done };
}

function setEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

const workspaces: string[] = [];

/** A fresh temporary directory and a database path inside it (not created). */
export function workspace(): { dir: string; db: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-commands-"));
  workspaces.push(dir);
  return { dir, db: path.join(dir, "x.db") };
}

export function removeWorkspaces(): void {
  for (const dir of workspaces.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * A command test's ledger on one engine: a SQLite file in a fresh temporary directory (not created
 * until a command writes), or a fresh PostgreSQL database cloned from the run's migrated template.
 * `flag` is what a command line names it with.
 */
export interface Ledger {
  engine: Engine;
  /** A temporary directory for the test's own files (on both engines). */
  dir: string;
  /** The SQLite file's path, or the PostgreSQL database's URL. */
  target: string;
  flag: ["--db", string] | ["--database-url", string];
}

/** A fresh ledger on `engine` (PostgreSQL needs the pg project's cluster: use under `describeEngines`). */
export async function ledgerWorkspace(engine: Engine): Promise<Ledger> {
  const { dir, db } = workspace();
  if (engine === "sqlite") return { engine, dir, target: db, flag: ["--db", db] };
  if (!pgAdminUrl) throw new Error("ledgerWorkspace: no PostgreSQL cluster in this project (a PostgreSQL test belongs in the pg project)");
  const url = await createTestDatabase(pgAdminUrl, undefined, { template: PG_TEMPLATE });
  return { engine, dir, target: url, flag: ["--database-url", url] };
}

/** The handles the readers opened, one per target, closed by `closeReaders`. */
const readers = new Map<string, Promise<Db>>();

function readerFor(ledger: Ledger): Promise<Db> {
  let reader = readers.get(ledger.target);
  if (!reader) {
    if (ledger.engine === "sqlite" && !fs.existsSync(ledger.target)) throw new Error(`no database at ${ledger.target}: no command has written it`);
    reader = openLedger(ledger.target, { migrate: false, poolSize: 1 });
    readers.set(ledger.target, reader);
  }
  return reader;
}

/**
 * Read the stored state straight from the ledger, as an auditor would, on either engine (values as
 * each driver gives them: a boolean reads 1/0 on SQLite and true/false on PostgreSQL, so select
 * `CAST(x AS integer)` to compare one). A string is sent as it is; bind values with sql`…`.
 */
export async function ledgerRows<T = Record<string, unknown>>(ledger: Ledger, query: SQL | string): Promise<T[]> {
  return rowsOf<T>(await readerFor(ledger), typeof query === "string" ? sql.raw(query) : query);
}

/** How many rows a query returns. */
export async function ledgerCount(ledger: Ledger, query: SQL | string): Promise<number> {
  const inner = typeof query === "string" ? sql.raw(query) : query;
  const [row] = await ledgerRows<{ n: number | string }>(ledger, sql`SELECT count(*) AS n FROM (${inner}) AS counted`);
  return Number(row?.n ?? 0);
}

/**
 * Whether nothing was ever written to the ledger: on SQLite no file was created; on PostgreSQL
 * every table of the (migrated) database is still empty.
 */
export async function ledgerUntouched(ledger: Ledger): Promise<boolean> {
  if (ledger.engine === "sqlite") return !fs.existsSync(ledger.target);
  return Object.values(await tableCountsOf(await readerFor(ledger))).every((n) => n === 0);
}

/**
 * Close the handles the readers opened (`afterEach(closeReaders)`: a PostgreSQL one holds a
 * connection of the cluster the run's test files share).
 */
export async function closeReaders(): Promise<void> {
  const opened = [...readers.values()];
  readers.clear();
  for (const reader of opened) await closeLedger(await reader);
}

/** Read the stored state straight from a SQLite file, as an auditor would (the ledger's `ledgerRows` reads either engine). */
export function rows<T = Record<string, unknown>>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export function count(file: string, sql: string, ...params: unknown[]): number {
  const [row] = rows<{ n: number }>(file, `SELECT count(*) AS n FROM (${sql})`, ...params);
  return row?.n ?? 0;
}

/** Resolves once `ready()` holds, polling every 20 ms; rejects after `ms` (a hang guard: a follower's first pass on PostgreSQL took 30 s on a loaded machine). */
export async function until(ready: () => boolean, ms = 45_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
