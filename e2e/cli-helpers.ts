/**
 * Runs the built `proofgate` executable (bin/proofgate.mjs → dist/cli.mjs) as child processes, the
 * way an agent's shell would, in local mode (`--db`) or remote mode (`--url` + `--token`) against the
 * Playwright web server. No browser is involved.
 */
// flake-risks time: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
// flake-risks random: a unique name, nothing more: any value unlike another run's will do
// flake-risks port: a port the kernel handed out and closed at once, to show what a client says when nothing listens; nothing here listens on ephemeral ports by chance
// flake-risks wait: the poll interval of a loop that awaits a condition
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "proofgate.mjs");

export interface CliResult {
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of every call: none of the caller's PROOFGATE_* settings leak into it. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("PROOFGATE_")) delete env[key];
  return env;
}

let cwd: string | undefined;

/** Calls run from an empty directory, so the default ./data/proofgate.db is never the one touched. */
function runDir(): string {
  if (cwd === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-e2e-cwd-"));
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    cwd = dir;
  }
  return cwd;
}

/** A call left running (`events --follow`). */
export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Stop it as Ctrl-C would; resolves with what it printed and its exit code. */
  interrupt(): Promise<CliResult>;
  done: Promise<CliResult>;
}

/** Start a call; `env` adds settings to its environment (which has none of the caller's PROOFGATE_* settings). */
export function start(args: string[], env: Record<string, string> = {}): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: runDir(), env: { ...childEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ args, code, stdout, stderr }));
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    interrupt: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      return done;
    },
    done,
  };
}

/** Run one call to completion. */
export function proofgate(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return start(args, env).done;
}

/** Resolves once `ready()` holds, polling every 25 ms; rejects after `ms` with `what` in the message. */
export async function until(ready: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The complete JSON lines printed so far (a partial last line is left for later). */
export function jsonLines<T = Record<string, unknown>>(text: string): T[] {
  const complete = text.slice(0, text.lastIndexOf("\n") + 1);
  return complete
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/** Read stored rows straight from a database file, as an auditor would (read-only). */
export function rows<T = Record<string, unknown>>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP relay in front of the server whose connections a test can cut: `down()` drops every open
 * connection and refuses new ones (as a server restart or a network outage would), `up()` listens
 * again on the same port.
 */
export interface TcpProxy {
  url: string;
  /** The request lines relayed so far, e.g. `GET /api/trpc/events.stream?input=…`. */
  requests(): string[];
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const requests: string[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    client.on("data", (chunk: Buffer) => requests.push(...(chunk.toString("latin1").match(/^(?:GET|POST) \S+/gm) ?? [])));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => (socket === client ? upstream : client).destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
  await listen(0);
  const { port } = server.address() as net.AddressInfo;
  const down = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => [...requests],
    down,
    up: () => listen(port),
    close: () => (server.listening ? down() : Promise.resolve()),
  };
}

/** Temporary directories made by a spec; removed by `removeWorkspaces`. */
const workspaces: string[] = [];

export function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-e2e-"));
  workspaces.push(dir);
  return dir;
}

export function removeWorkspaces(): void {
  for (const dir of workspaces.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A session id no earlier run has used: the server's database persists across tests. */
export function uniqueId(prefix: string): string {
  // flake-risk: a unique name, nothing more: any value unlike another run's will do
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

/** The identities the scenarios act as; in remote mode each is an API token of that role. */
export const ROLES_USED = {
  developer_1: "agent",
  developer_2: "agent",
  verifier: "verifier",
  orchestrator: "orchestrator",
  viewer: "viewer",
  lead: "lead",
  admin: "admin",
} as const;
export type Who = keyof typeof ROLES_USED;

export interface IssuedToken {
  id: number;
  token: string;
  name: string;
  role: string;
}

/**
 * Where and as whom a call runs. Local mode opens the file as the machine's operator (admin rights,
 * the agent label compared for "never the claimant"); remote mode calls the server with the token of
 * that role. Either way `--agent-id` carries the label, so stored actors are the same in both.
 */
export interface Mode {
  name: "local" | "remote";
  /** The database file the calls end up in, for checking stored rows. */
  db: string;
  /** Global flags for a call acting as `who` under the agent label `label` (default: `who`). */
  as(who: Who, label?: string): string[];
  /** The principal stored on a task row for a move made as `who` (null for the local operator). */
  principal(who: Who): string | null;
  /** Global flags that point at a Proofgate that cannot be reached. */
  unreachable(): Promise<string[]>;
}

export function localMode(db: string): Mode {
  return {
    name: "local",
    db,
    as: (who, label = who) => ["--db", db, "--agent-id", label],
    principal: () => null,
    // A directory is not a database file.
    unreachable: async () => ["--db", path.dirname(db)],
  };
}

export function remoteMode(url: string, db: string, tokens: Record<Who, IssuedToken>): Mode {
  return {
    name: "remote",
    db,
    as: (who, label = who) => ["--url", url, "--token", tokens[who].token, "--agent-id", label],
    principal: (who) => `token:${tokens[who].id}`,
    unreachable: async () => ["--url", `http://127.0.0.1:${await closedPort()}`, "--token", tokens.viewer.token],
  };
}
