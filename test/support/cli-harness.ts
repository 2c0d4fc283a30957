/**
 * Runs `proofgate <args>` for the command tests and returns what a script would see: exit code,
 * stdout, stderr. In-process by default (the program that `main` builds, plus these commands, with
 * stdout and stderr captured; calls run one at a time); with PROOFGATE_CLI_TEST=spawn every call
 * is a child process of the built executable, as in server/cli/cli.test.ts (PROOFGATE_CLI_BIN
 * points at another build).
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { main } from "@/server/cli";

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

/** Read the stored state straight from the file, as an auditor would. */
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

/** Resolves once `ready()` holds, polling every 20 ms; rejects after `ms`. */
export async function until(ready: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
