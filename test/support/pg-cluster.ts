/**
 * Throwaway PostgreSQL clusters for tests (docs/postgresql.md, "For developers: the PostgreSQL
 * test cluster"). Never the system cluster and never a fixed port: each cluster is `initdb`'d into
 * its own temporary folder, listens on a free port with its unix socket in that folder, runs with
 * durability off (fsync, synchronous_commit, full_page_writes), and is stopped (`pg_ctl -m
 * immediate`) and deleted on teardown, on process exit, and by the next run if its owner died.
 *
 * Two forms:
 * - the vitest globalSetup (the default export): one cluster per run for the `pg` project,
 *   `project.provide("pgAdminUrl", url)`; test files `inject("pgAdminUrl")` and make their own
 *   databases with `createTestDatabase`. Without PostgreSQL it provides nothing and the tests skip.
 * - `startPgCluster()`: a cluster of one's own (a test that needs to stop or restart it).
 *
 * initdb refuses to run as root: as root, the cluster's programs run as the `postgres` user.
 * PROOFGATE_REQUIRE_PG=1 (set by .ci/run) turns "not installed, skipped" into a failure.
 */
// flake-risks random: a unique name, nothing more: any value unlike another run's will do
// flake-risks port: pg_ctl needs a port number: one is chosen free, and startOnFreePort tries again when another process took it
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://` URL of the run's cluster's `postgres` database (superuser), or undefined when PostgreSQL is not installed. */
    pgAdminUrl: string | undefined;
    /** The database migrated from db/migrations-pg to clone per test file (`createTestDatabase(url, name, { template })`), once that folder exists. */
    pgTemplate: string | undefined;
  }
}

const DIR_PREFIX = "proofgate-pgcluster-";
/** The globalSetup's template database (db/migrations-pg applied). */
export const PG_TEMPLATE = "proofgate_template";
const OWNER_FILE = "owner.pid";

export interface PgCluster {
  /** The cluster's folder: `data/`, `log`, the unix socket. */
  dir: string;
  port: number;
  /** URL of the `postgres` database as the superuser `postgres` (over the unix socket). */
  adminUrl: string;
  /** URL of database `name` on this cluster. */
  urlFor(name: string): string;
  /** `CREATE DATABASE name [TEMPLATE template]`; returns its URL. */
  createDatabase(name: string, options?: { template?: string }): Promise<string>;
  /** `pg_ctl restart -m fast`, with the same settings: every connection is dropped and the shared buffers start empty. */
  restart(): void;
  /** `pg_ctl stop -m immediate`, then delete the folder. Idempotent. */
  stop(): void;
}

/**
 * The bin folder of the newest installed PostgreSQL (`/usr/lib/postgresql/<major>/bin`, else
 * `pg_config --bindir`), or undefined. `PROOFGATE_PG_BINDIR` chooses one (and a folder without
 * initdb, e.g. `/nonexistent`, means "not installed").
 */
export function findPgBinDir(): string | undefined {
  const chosen = process.env.PROOFGATE_PG_BINDIR;
  if (chosen !== undefined) return fs.existsSync(path.join(chosen, "initdb")) ? chosen : undefined;
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+(\.\d+)?$/.test(v) && fs.existsSync(path.join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return path.join(root, versions[0], "bin");
  try {
    const bindir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (bindir && fs.existsSync(path.join(bindir, "initdb"))) return bindir;
  } catch {
    // no pg_config either
  }
  return undefined;
}

/** Why there is no cluster, in one line (printed by the globalSetup, and by tests that skip). */
export const PG_MISSING = "PostgreSQL not installed (no /usr/lib/postgresql/*/bin/initdb, no pg_config): PostgreSQL tests skipped";

/** The URL of database `name` through the unix socket in `socketDir`. */
export function clusterUrl(socketDir: string, port: number, name: string): string {
  return `postgres://postgres@localhost:${port}/${encodeURIComponent(name)}?host=${encodeURIComponent(socketDir)}`;
}

/** A URL with its database swapped for `name` (same cluster, same user, same socket). */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Create database `name` (or a unique `t_<pid>_<n>_<random>` one) on the cluster of `adminUrl`,
 * optionally as a copy of `template` (`STRATEGY FILE_COPY`: about 0.3 s; the template must have no
 * open connections). Returns its URL. For test files: `createTestDatabase(inject("pgAdminUrl")!)`.
 */
export async function createTestDatabase(adminUrl: string, name = uniqueName(), options: { template?: string } = {}): Promise<string> {
  if (!IDENTIFIER.test(name)) throw new Error(`createTestDatabase: ${JSON.stringify(name)} is not a plain lower-case identifier`);
  if (options.template !== undefined && !IDENTIFIER.test(options.template)) {
    throw new Error(`createTestDatabase: template ${JSON.stringify(options.template)} is not a plain lower-case identifier`);
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const template = options.template ? ` TEMPLATE "${options.template}" STRATEGY FILE_COPY` : "";
    await client.query(`CREATE DATABASE "${name}"${template}`);
  } finally {
    await client.end();
  }
  return databaseUrl(adminUrl, name);
}

let counter = 0;
function uniqueName(): string {
  counter += 1;
  return `t_${process.pid}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A port nobody listens on right now (the kernel's choice). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** Run a PostgreSQL program (as `postgres` when we are root), throwing with its output when it fails. */
function run(bin: string, program: string, args: string[]): void {
  const file = path.join(bin, program);
  const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  const result = spawnSync(command, argv, { encoding: "utf8", env: cleanEnv(), timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(`${program} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}${result.stderr}`);
  }
}

/** The environment without PG* variables, so a developer's PGHOST/PGPORT/PGDATA cannot point a program at another cluster. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PG"))) as NodeJS.ProcessEnv;
}

function stopAndDelete(bin: string, dir: string): void {
  const data = path.join(dir, "data");
  if (fs.existsSync(path.join(data, "postmaster.pid"))) {
    const file = path.join(bin, "pg_ctl");
    const args = ["-D", data, "-m", "immediate", "-w", "stop"];
    const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
    spawnSync(command, argv, { stdio: "ignore", env: cleanEnv(), timeout: 30_000 });
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Where clusters live: the temporary folder, unless its path would not do for a unix socket (the
 * socket's path must fit in 107 bytes, and pg_ctl's `-o` options are split on spaces): then /tmp.
 */
function clusterBase(): string {
  const tmp = os.tmpdir();
  return tmp.length <= 64 && !/\s/.test(tmp) ? tmp : "/tmp";
}

/** Clusters left behind by a run that was killed (its owner's pid is gone): stop and delete them. */
function sweepOrphans(bin: string): void {
  const tmp = clusterBase();
  for (const entry of fs.readdirSync(tmp)) {
    if (!entry.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(tmp, entry);
    let owner = 0;
    try {
      owner = Number(fs.readFileSync(path.join(dir, OWNER_FILE), "utf8"));
    } catch {
      continue; // not one of ours, or being created right now
    }
    if (owner > 0 && !isAlive(owner)) stopAndDelete(bin, dir);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const live = new Map<string, () => void>();
let exitHookInstalled = false;

/** Stop every cluster this process started when it exits, even on an uncaught error or a signal. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const stop of [...live.values()]) stop();
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      for (const stop of [...live.values()]) stop();
      // Nobody else handles it: die of it as we would have without this hook.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

export interface StartOptions {
  /** Server settings added to the defaults (`-c name=value`), e.g. `{ max_connections: "50" }`. */
  settings?: Record<string, string>;
  /**
   * A database created and migrated from `migrationsFolder` once, then left with no connection so
   * that tests can clone it (`createDatabase(name, { template: name })`, about 0.3 s each).
   */
  template?: { name: string; migrationsFolder: string };
}

/**
 * initdb + start a private cluster (about 1 s). Throws when PostgreSQL is not installed (check
 * `findPgBinDir()` first to skip instead).
 */
export async function startPgCluster(options: StartOptions = {}): Promise<PgCluster> {
  const bin = findPgBinDir();
  if (!bin) throw new Error(PG_MISSING);
  sweepOrphans(bin);
  const dir = fs.mkdtempSync(path.join(clusterBase(), DIR_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  installExitHook();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    live.delete(dir);
    stopAndDelete(bin, dir);
  };
  live.set(dir, stop);
  try {
    if (asRoot) execFileSync("chown", ["postgres:", dir]);
    const data = path.join(dir, "data");
    run(bin, "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C.UTF-8", "--no-instructions"]);
    const settings: Record<string, string> = {
      listen_addresses: "127.0.0.1",
      unix_socket_directories: dir,
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
      max_connections: "200",
      ...options.settings,
    };
    const port = await startOnFreePort(bin, dir, settings);
    const adminUrl = clusterUrl(dir, port, "postgres");
    if (options.template) await migrateTemplate(adminUrl, options.template.name, options.template.migrationsFolder);
    return {
      dir,
      port,
      adminUrl,
      urlFor: (name) => clusterUrl(dir, port, name),
      createDatabase: (name, createOptions) => createTestDatabase(adminUrl, name, createOptions),
      // pg_ctl restarts with the options of the last start (data/postmaster.opts).
      restart: () => run(bin, "pg_ctl", ["-D", path.join(dir, "data"), "-l", path.join(dir, "log"), "-w", "-t", "60", "-m", "fast", "restart"]),
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/** Create database `name`, apply the migrations, and disconnect (a template must have no open connections while it is cloned). */
async function migrateTemplate(adminUrl: string, name: string, migrationsFolder: string): Promise<void> {
  const { openPgDatabase, closePgDatabase } = await import("../../db/pg/client");
  const db = await openPgDatabase(await createTestDatabase(adminUrl, name), { migrationsFolder, max: 1, applicationName: "proofgate-template" });
  await closePgDatabase(db);
}

/** `pg_ctl start -w` on a free port; another process may take the port between the check and the start, so try a few. */
async function startOnFreePort(bin: string, dir: string, settings: Record<string, string>): Promise<number> {
  const data = path.join(dir, "data");
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const flags = [`-p ${port}`, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(" ");
    try {
      run(bin, "pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "60", "-o", flags, "start"]);
      return port;
    } catch (error) {
      lastError = error;
      const log = fs.existsSync(path.join(dir, "log")) ? fs.readFileSync(path.join(dir, "log"), "utf8") : "";
      if (!/could not (bind|create listen socket)|Address already in use/i.test(log)) break;
    }
  }
  throw lastError;
}

/**
 * vitest globalSetup for the `pg` project: one cluster for the whole run, its admin URL provided
 * as `pgAdminUrl`. Without PostgreSQL: a message, `pgAdminUrl` undefined, and the pg tests skip.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  if (!findPgBinDir()) {
    // CI installs PostgreSQL (.ci/run) and sets this: there, a missing initdb is a broken machine, not a skip.
    if (process.env.PROOFGATE_REQUIRE_PG === "1") throw new Error(`${PG_MISSING}; but PROOFGATE_REQUIRE_PG=1 requires them`);
    console.warn(PG_MISSING);
    project.provide("pgAdminUrl", undefined);
    project.provide("pgTemplate", undefined);
    return () => {};
  }
  // Once db/migrations-pg exists: a migrated template database for tests to clone.
  const migrationsFolder = path.join(project.config.root, "db", "migrations-pg");
  const template = fs.existsSync(path.join(migrationsFolder, "meta", "_journal.json")) ? { name: PG_TEMPLATE, migrationsFolder } : undefined;
  const cluster = await startPgCluster({ template });
  project.provide("pgAdminUrl", cluster.adminUrl);
  project.provide("pgTemplate", template?.name);
  return () => cluster.stop();
}
