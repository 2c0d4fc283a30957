/**
 * `proofgate serve` as an operator runs it: one process serving the dashboard and the API from the
 * production build. A remote `events --follow` keeps printing across a server restart: SIGTERM
 * ends the server even while the stream is open, the follower reconnects to the next server from
 * the last event it printed, and an event written by a local-mode process meanwhile is not lost.
 * No browser (`test` from @playwright/test); runs in the desktop project only.
 */
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
