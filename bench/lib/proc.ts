/** Child processes the bench runs: the built CLI, the production server; and their memory. */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { nextStartArgs } from "../../scripts/server-process.mjs";
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

/** `proofgate <args> --db <db>` in local mode; refuses (throws) on a non-zero exit. */
export async function proofgate(db: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const result = await run(process.execPath, [CLI, ...args, "--db", db], { env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  if (result.code !== 0) throw new Error(`proofgate ${args.join(" ")} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result;
}

export interface Server {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The production server (`next start`, as scripts/start.mjs runs it) on its own port and database. */
export async function startServer(db: string, port: number, profileDir?: string): Promise<Server> {
  // `next start` serves from this one process, which writes its profile when it exits.
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  // The same node flags as `npm start` (scripts/start.mjs): the bench measures the server a user runs.
  const child = spawn(process.execPath, [...profile, ...nextStartArgs(port, "127.0.0.1")], {
    cwd: ROOT,
    env: { ...process.env, PROOFGATE_DB: db, NEXT_TELEMETRY_DISABLED: "1", PROOFGATE_SIGNIN_LIMIT: "1000", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const logFile = path.join(path.dirname(db), `server-${port}.log`);
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
    if (await answers(`${url}/sign-in`)) break;
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`the server did not answer on ${url} within 60 s: ${log}`);
    }
    await sleep(100);
  }
  return {
    url,
    pid: child.pid!,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), 5_000).unref();
      }),
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

/** Resident memory of a process and all its descendants, in MB (Linux /proc). */
export function treeRssMb(pid: number): number {
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
  let kb = 0;
  const visit = (p: number) => {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, "utf8");
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // gone
    }
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return kb / 1024;
}
