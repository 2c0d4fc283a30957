/**
 * `proofgate serve` as an operator runs it: one process serving the dashboard and the API from the
 * production build. A remote `events --follow` keeps printing across a server restart: SIGTERM
 * ends the server even while the stream is open, the follower reconnects to the next server from
 * the last event it printed, and an event written by a local-mode process meanwhile is not lost.
 * No browser (`test` from @playwright/test); runs in the desktop project only.
 */
// flake-risks port: the follower must find the next server, and every worker the one port, at one address, so a port is chosen once; a port taken in between fails serve loudly
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type RunningCli, closedPort, jsonLines, proofgate, removeWorkspaces, rows, start, until, workspace } from "./cli-helpers";

test.describe.configure({ mode: "serial", timeout: 120_000 });
test.beforeAll(({}, testInfo) => test.skip(testInfo.project.name !== "desktop", "the command line runs once, without a browser"));
test.afterAll(removeWorkspaces);

async function ok(...args: string[]) {
  const run = await proofgate(args);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

async function serve(db: string, port: number): Promise<RunningCli> {
  const server = start(["--db", db, "serve", "--port", String(port)]);
  await until(() => server.stdout().includes("Proofgate on"), "the server to listen", 60_000).catch(async (error: Error) => {
    const result = await server.interrupt();
    throw new Error(`${error.message}\n${result.stdout}${result.stderr}`);
  });
  return server;
}

test("serve answers the dashboard and the API, stops on SIGTERM with a live stream open, and the follower resumes on the next server", async () => {
  const db = path.join(workspace(), "served.db");
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}`;
  await ok("--db", db, "create-session", "served", "simple", "Serve and follow");
  const { token } = JSON.parse((await ok("--db", db, "--json", "token", "create", "--name", "watcher", "--role", "viewer")).stdout) as { token: string };

  let server = await serve(db, port);
  let follower: RunningCli | undefined;
  try {
    expect(server.stdout()).toContain(`Proofgate on ${url} (database ${db})`);
    expect((await fetch(`${url}/`)).status).toBe(200);
    const viewer = ["--url", url, "--token", token];
    expect(JSON.parse((await ok(...viewer, "--json", "get-session", "served")).stdout)).toMatchObject({ session_id: "served", status: "active" });

    follower = start([...viewer, "events", "--session", "served", "--follow"]);
    const seen = () => jsonLines<{ id: number; type: string; data: { key?: string } }>(follower!.stdout());
    for (let probe = 1; seen().length === 0; probe++) {
      expect(probe, "the follower printed none of the probes").toBeLessThanOrEqual(10);
      await ok("--db", db, "save-event", "served", "probe", JSON.stringify({ probe }));
      await until(() => seen().length > 0, "a probe event", 1_500).catch(() => undefined);
    }

    // SIGTERM with the stream open: the server exits by itself (no kill -9 needed).
    server.child.kill("SIGTERM");
    const stopped = await server.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    await until(() => follower!.stderr().includes("event stream lost"), "the follower to notice");
    await ok("--db", db, "--agent-id", "orchestrator", "create-task-group", "written_while_down", "served", "Written while the server was down");

    server = await serve(db, port);
    await until(() => seen().some((e) => e.data.key === "written_while_down"), "the event written while the server was down", 20_000);
    expect(follower.stderr()).toContain("event stream restored");
    await ok("--db", db, "--agent-id", "orchestrator", "create-task-group", "written_after", "served", "Written after the restart");
    await until(() => seen().some((e) => e.data.key === "written_after"), "the event written after the restart");
    const result = await follower.interrupt();
    expect(result.code, result.stderr).toBe(0);
    const printed = jsonLines<{ id: number; type: string }>(result.stdout);
    const stored = rows<{ id: number; type: string }>(db, "SELECT id, type FROM events WHERE session_id = 'served' AND id >= ? ORDER BY id", printed[0]!.id);
    expect(printed.map((e) => [e.id, e.type])).toEqual(stored.map((e) => [e.id, e.type]));
  } finally {
    await follower?.interrupt();
    await server.interrupt();
  }
});

/** The pids of a process's children (its cluster workers). */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The socket inodes a process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Established IPv4 TCP connections: local port, remote port, inode. */
function tcpConnections(): { local: number; remote: number; inode: string }[] {
  return fs
    .readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols[3] === "01")
    .map((cols) => ({ local: parseInt(cols[1]!.split(":")[1]!, 16), remote: parseInt(cols[2]!.split(":")[1]!, 16), inode: cols[9]! }));
}

/** Which of the workers holds the server end of a client process's connection to `port`. */
function workerServing(client: number, port: number, workers: number[]): number | undefined {
  const mine = socketInodes(client);
  const conns = tcpConnections();
  const clientPort = conns.find((c) => mine.has(c.inode) && c.remote === port)?.local;
  if (clientPort === undefined) return undefined;
  const serverEnd = conns.find((c) => c.local === port && c.remote === clientPort)?.inode;
  return workers.find((w) => serverEnd !== undefined && socketInodes(w).has(serverEnd));
}

test("serve --workers 2: both workers answer on one port and one database, a write through one reaches a live stream held by the other, and SIGTERM stops them all", async () => {
  const db = path.join(workspace(), "workers.db");
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}`;
  await ok("--db", db, "create-session", "shared", "simple", "Two workers");
  const issue = async (name: string, role: string) =>
    (JSON.parse((await ok("--db", db, "--json", "token", "create", "--name", name, "--role", role)).stdout) as { token: string }).token;
  const viewer = ["--url", url, "--token", await issue("watcher", "viewer")];
  const writer = ["--url", url, "--token", await issue("writer", "orchestrator"), "--agent-id", "orchestrator"];

  const server = start(["--db", db, "serve", "--port", String(port), "--workers", "2"]);
  const followers: RunningCli[] = [];
  try {
    await until(() => server.stdout().includes("Proofgate on"), "the workers to listen", 90_000);
    expect(server.stdout()).toContain(`Proofgate on ${url} (database ${db}) with 2 worker processes`);
    const workers = childrenOf(server.child.pid!);
    expect(workers).toHaveLength(2);
    expect((await fetch(`${url}/`)).status).toBe(200);

    // Two followers, one after the other. Node's cluster hands connections to its workers in turn
    // (round-robin, the default on Linux), so two consecutive connections land on different workers.
    // `--since` spares the follower's `events.latestId` call: each follower is then exactly one
    // connection (the CLI's requests never share one), and the turns are not taken by a short call.
    const last = rows<{ id: number | null }>(db, "SELECT max(id) AS id FROM events")[0]!.id ?? 0;
    const held = new Map<number, RunningCli>();
    for (let i = 0; i < 2; i++) {
      const follower = start([...viewer, "events", "--session", "shared", "--follow", "--since", String(last)]);
      followers.push(follower);
      let worker: number | undefined;
      await until(() => (worker = workerServing(follower.child.pid!, port, workers)) !== undefined, "the follower's connection", 20_000);
      held.set(worker!, follower);
    }
    expect(held.size, "two consecutive connections were not handed to two workers").toBe(2);

    // Writes over HTTP, each on a new connection (so through either worker): every follower sees every one.
    for (const key of ["written_1", "written_2", "written_3"]) await ok(...writer, "create-task-group", key, "shared", `Task group ${key}`);
    for (const [worker, follower] of held) {
      const keys = () => jsonLines<{ data: { key?: string } }>(follower.stdout()).map((e) => e.data.key);
      await until(() => ["written_1", "written_2", "written_3"].every((k) => keys().includes(k)), `worker ${worker}'s follower to print every write`, 20_000);
    }

    // SIGTERM to the primary with streams open: every worker exits, then the primary, with code 0.
    server.child.kill("SIGTERM");
    const stopped = await server.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    for (const worker of workers) expect(fs.existsSync(`/proc/${worker}`), `worker ${worker} still running`).toBe(false);
  } finally {
    for (const follower of followers) await follower.interrupt();
    await server.interrupt();
  }
});
