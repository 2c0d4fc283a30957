// The production server (`proofgate serve`, as `npm start` runs it: scripts/server-process.mjs) on the
// run's own database (a SQLite file, or a PostgreSQL database) and port, as a process the runner can
// SIGKILL: it runs in its own process group, so the kill reaches every process it made (a cluster's
// workers too).
// flake-risks time: the crash run's stopwatch and its bounded wait for the server to be ready
// flake-risks wait: polls for readiness and bounds the wait for a killed process to exit
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { isPostgresUrl } from "@/db/pg/client";
import { serveArgs } from "../../scripts/server-process.mjs";

export interface ServerOptions {
  /** A SQLite file or a postgres:// URL: given as `--db` or `--database-url`, which beat whatever the environment names. */
  ledger: string;
  /** Added to the server's environment (BETTER_AUTH_SECRET, which `serve` on PostgreSQL requires). */
  env?: Record<string, string>;
  port: number;
  /** Where the server's stdout and stderr go (appended across restarts). */
  logFile: string;
  /** A token the readiness probe authenticates with. */
  token: string;
}

const READY_TIMEOUT_MS = 90_000;

export class ProofgateServer {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  starts = 0;
  /** When the running server was spawned (ms since the epoch). */
  spawnedAt = 0;

  constructor(private readonly options: ServerOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  /** Start the server and wait until it answers an authenticated query; returns how long that took (ms). */
  async start(): Promise<number> {
    const began = Date.now();
    this.spawn();
    await this.ready(began);
    return Date.now() - began;
  }

  /** Start the server process without waiting for it (to kill it while it starts). */
  spawn(): void {
    if (this.child) throw new Error("the server is already running");
    const log = fs.openSync(this.options.logFile, "a");
    fs.writeSync(log, `\n--- start ${this.starts + 1} at ${new Date().toISOString()} ---\n`);
    const { ledger } = this.options;
    const args = [...serveArgs(this.options.port, "127.0.0.1"), isPostgresUrl(ledger) ? "--database-url" : "--db", ledger];
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: ["ignore", log, log],
      env: { ...process.env, ...this.options.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    });
    this.spawnedAt = Date.now();
    fs.closeSync(log);
    this.child = child;
    this.starts += 1;
    this.exited = new Promise((resolve) =>
      child.once("exit", () => {
        if (this.child === child) this.child = null;
        resolve();
      }),
    );
  }

  get running(): boolean {
    return this.child !== null;
  }

  private async ready(began: number): Promise<void> {
    for (;;) {
      if (!this.child) throw new Error(`the server exited before it was ready; see ${this.options.logFile}`);
      if (Date.now() - began > READY_TIMEOUT_MS) throw new Error(`the server was not ready after ${READY_TIMEOUT_MS} ms; see ${this.options.logFile}`);
      if (await this.answers()) return;
      await sleep(50);
    }
  }

  /** SIGKILL the server's whole process group at once: no handler runs, nothing is flushed. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child?.pid) throw new Error("the server is not running");
    process.kill(-child.pid, "SIGKILL");
    await this.exited;
  }

  /** A graceful stop (SIGTERM), as an operator would. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    process.kill(-child.pid, "SIGTERM");
    await Promise.race([this.exited, sleep(10_000)]);
    if (this.child === child) await this.kill();
  }

  /** For the runner's exit handler: make sure no server outlives the run. */
  killNow(): void {
    if (this.child?.pid) {
      try {
        process.kill(-this.child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }

  private async answers(): Promise<boolean> {
    try {
      const response = await fetch(`${this.url}/api/trpc/events.latestId`, {
        headers: { authorization: `Bearer ${this.options.token}` },
        signal: AbortSignal.timeout(5_000),
      });
      await response.arrayBuffer();
      return response.ok;
    } catch {
      return false;
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
