/** Child processes the bench runs: the built CLI, the production server; and their memory. */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { serveArgs } from "../../scripts/server-process.mjs";
import { isPostgresUrl } from "@/db/pg/client";
import { defaultWorkers } from "@/server/serve/server";
import { now, sleep } from "./stats";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const CLI = path.join(ROOT, "bin", "proofgate.mjs");

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run a command to completion; `ms` is the whole process, spawn to exit. */
export function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; inherit?: boolean } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: options.inherit ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: now() - started }));
  });
}

/** The global flags that name a ledger for the CLI: `--db <file>`, or `--database-url <url>` for PostgreSQL. */
export function ledgerFlags(ledger: string): string[] {
  return isPostgresUrl(ledger) ? ["--database-url", ledger] : ["--db", ledger];
}

/** How the notes write those flags: `--db <file>` or `--database-url <url>`. */
export function ledgerFlagsText(ledger: string): string {
  return isPostgresUrl(ledger) ? "--database-url <url>" : "--db <file>";
}

/** `proofgate <args> --db <file>` (or `--database-url <url>`) in local mode; refuses (throws) on a non-zero exit. */
export async function proofgate(ledger: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const result = await run(process.execPath, [CLI, ...args, ...ledgerFlags(ledger)], { env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  if (result.code !== 0) throw new Error(`proofgate ${args.join(" ")} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result;
}

export interface Server {
  url: string;
  pid: number;
  /** Processes that serve (PROOFGATE_WORKERS). */
  workers: number;
  child: ChildProcess;
  /** Where its stdout and stderr go (appended). */
  logFile: string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Write V8 CPU profiles here (each serving process writes its own when it exits). */
  profileDir?: string;
  /** PROOFGATE_WORKERS for this server; unset: the default `npm start` uses. */
  workers?: number;
  /** Send the API through Next's router too (PROOFGATE_API_VIA_NEXT=1): only to measure what the direct path saves. */
  apiViaNext?: boolean;
  /** More environment for the server (BETTER_AUTH_SECRET on PostgreSQL). */
  env?: Record<string, string>;
  /** Where the server's log goes (default: beside the database file). */
  logDir?: string;
}

/**
 * The production server (`proofgate serve`, as scripts/start.mjs runs it) on its own port and
 * ledger: a SQLite file (PROOFGATE_DB) or a postgres:// URL (PROOFGATE_DATABASE_URL).
 */
export async function startServer(ledger: string, port: number, options: ServerOptions = {}): Promise<Server> {
  const profile = options.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`] : [];
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PROOFGATE_SIGNIN_LIMIT: "1000", NODE_ENV: "production", ...options.env };
  delete env.PROOFGATE_DB;
  delete env.PROOFGATE_DATABASE_URL;
  if (isPostgresUrl(ledger)) env.PROOFGATE_DATABASE_URL = ledger;
  else env.PROOFGATE_DB = ledger;
  if (options.workers !== undefined) env.PROOFGATE_WORKERS = String(options.workers);
  if (options.apiViaNext) env.PROOFGATE_API_VIA_NEXT = "1";
  else delete env.PROOFGATE_API_VIA_NEXT;
  // The same node flags and command as `npm start` (scripts/start.mjs): the bench measures the server a user runs.
  const child = spawn(process.execPath, [...profile, ...serveArgs(port, "127.0.0.1")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const logFile = path.join(options.logDir ?? path.dirname(ledger), `server-${port}.log`);
  const keep = (c: Buffer) => {
    log = (log + c.toString()).slice(-20_000);
    fs.appendFileSync(logFile, c);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${log}`);
    // `proofgate serve` says so once every worker listens.
    if (log.includes("Proofgate on") && (await answers(`${url}/sign-in`))) break;
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`the server did not answer on ${url} within 60 s: ${log}`);
    }
    await sleep(100);
  }
  return {
    url,
    pid: child.pid!,
    workers: options.workers ?? defaultWorkers(),
    child,
    logFile,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

/**
 * What the servers started with `logDir` wrote from now on (every `server-<port>.log` there): a
 * failed measurement quotes it, so a refusal's cause on the server side is in the results.
 */
export function serverLogs(logDir: string): { since(): string } {
  const files = () => fs.readdirSync(logDir).filter((f) => /^server-\d+\.log$/.test(f));
  const start = new Map(files().map((f) => [f, fs.statSync(path.join(logDir, f)).size]));
  return {
    since: () =>
      files()
        .map((f) => {
          const text = fs
            .readFileSync(path.join(logDir, f))
            .subarray(start.get(f) ?? 0)
            .toString("utf8")
            .trim();
          return text ? `${f}:\n${text.slice(-4000)}` : "";
        })
        .filter(Boolean)
        .join("\n"),
  };
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) > 0);
    });
    req.on("error", () => resolve(false));
    req.setTimeout(2_000, () => req.destroy());
  });
}

/** A process and all its descendants (Linux /proc): the server's workers too. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone
    }
  }
  const tree: number[] = [];
  const visit = (p: number) => {
    tree.push(p);
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return tree;
}

/**
 * CPU milliseconds used so far by a process and all its descendants (utime + stime from
 * /proc/<pid>/stat, in USER_HZ clock ticks of 10 ms): the server's workers too. A process that
 * exited is no longer counted, so take both readings while the processes live.
 */
export function treeCpuMs(pid: number): number {
  const tick = 100; // USER_HZ on Linux
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return (ticks * 1000) / tick;
}

export interface TreeMemory {
  /** Sum of the processes' resident memory now, MB. */
  rssMb: number;
  /** Sum of each process's peak resident memory since it started (VmHWM), MB. */
  peakMb: number;
  processes: number;
}

/** Resident memory of a process and all its descendants (VmRSS and VmHWM from /proc/<pid>/status). */
export function treeMemory(pid: number): TreeMemory {
  let rss = 0;
  let hwm = 0;
  let processes = 0;
  for (const p of processTree(pid)) {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, "utf8");
      rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      hwm += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      processes += 1;
    } catch {
      // gone
    }
  }
  return { rssMb: rss / 1024, peakMb: hwm / 1024, processes };
}

/** Resident memory of a process and all its descendants, in MB (Linux /proc). */
export function treeRssMb(pid: number): number {
  return treeMemory(pid).rssMb;
}
