/**
 * Several servers on one PostgreSQL database (issue 21), as an operator runs them: two `proofgate
 * serve --database-url` processes on a throwaway cluster of the test's own (never the system's,
 * never a fixed port). Started together, they migrate the empty database once; a person signed in
 * through one is signed in on the other; a write through either shows live on a page served by the
 * other; and when one is killed (SIGKILL, mid-write) the other goes on serving, and no action was
 * left half-written. Runs once, in the desktop project; skipped without PostgreSQL unless
 * PROOFGATE_REQUIRE_PG=1 (CI), which makes that a failure.
 */
// flake-risks port: serve needs a port number: one chosen free; a port taken in between fails the start loudly, never passes wrongly
import fs from "node:fs";
import path from "node:path";
import { type Page, expect, test } from "@playwright/test";
import pg from "pg";
import { PG_MISSING, type PgCluster, findPgBinDir, startPgCluster } from "../test/support/pg-cluster";
import { type RunningCli, closedPort, proofgate, removeWorkspaces, start, until } from "./cli-helpers";

test.describe.configure({ mode: "serial", timeout: 180_000 });

const SECRET = { BETTER_AUTH_SECRET: "e2e-two-servers-share-this-key-0123456789" };
const PASSWORD = "two-servers-password";
let cluster: PgCluster | undefined;

test.beforeAll(async ({}, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "the servers run once, for the desktop project");
  if (!findPgBinDir()) {
    if (process.env.PROOFGATE_REQUIRE_PG === "1") throw new Error(`${PG_MISSING}; but PROOFGATE_REQUIRE_PG=1 requires them`);
    test.skip(true, PG_MISSING);
  }
  cluster = await startPgCluster();
});

test.afterAll(() => {
  cluster?.stop();
  removeWorkspaces();
});

interface Server {
  url: string;
  running: RunningCli;
}

async function serve(databaseUrl: string): Promise<Server> {
  const port = await closedPort();
  const running = start(["--database-url", databaseUrl, "serve", "--port", String(port)], SECRET);
  return { url: `http://127.0.0.1:${port}`, running };
}

async function listening(server: Server): Promise<void> {
  await until(() => server.running.stdout().includes("Proofgate on"), "the server to listen", 90_000).catch(async (error: Error) => {
    const result = await server.running.interrupt();
    throw new Error(`${error.message}\n${result.stdout}${result.stderr}`);
  });
}

async function ok(args: string[]) {
  const run = await proofgate(args, SECRET);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

async function query<T>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The PostgreSQL migrations the repository ships (drizzle-kit's journal). */
function shippedMigrations(): number {
  const journal = JSON.parse(fs.readFileSync(path.resolve("db", "migrations-pg", "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
  return journal.entries.length;
}

async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(`${email} · lead`);
}

/** A token for the remote-mode CLI (local mode on the database itself acts as the operator, an admin). */
async function agentToken(databaseUrl: string, name: string, role: "orchestrator" | "agent" | "verifier"): Promise<string> {
  const run = await ok(["--database-url", databaseUrl, "--json", "token", "create", "--name", name, "--role", role]);
  return (JSON.parse(run.stdout) as { token: string }).token;
}

test("two servers started together on an empty database migrate it once, share sign-in, and each shows the other's writes live", async ({ browser }) => {
  const databaseUrl = await cluster!.createDatabase("two_servers");
  const [a, b] = await Promise.all([serve(databaseUrl), serve(databaseUrl)]);
  try {
    await Promise.all([listening(a), listening(b)]);
    const applied = await query<{ n: number }>(databaseUrl, 'SELECT count(*)::int AS n FROM drizzle."__drizzle_migrations"');
    expect(applied).toEqual([{ n: shippedMigrations() }]);

    await ok(["--database-url", databaseUrl, "user", "create", "--email", "lead@example.com", "--password", PASSWORD, "--role", "lead"]);
    const token = await agentToken(databaseUrl, "orchestrator", "orchestrator");
    const agent = await agentToken(databaseUrl, "developer", "agent");
    const verifier = await agentToken(databaseUrl, "qa", "verifier");
    await ok(["--url", a.url, "--token", token, "--agent-id", "orchestrator", "create-session", "shared", "parallel", "Two servers, one ledger"]);

    // Signed in through A: the same browser is signed in on B (one key, one table of sessions).
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, a.url, "lead@example.com");
    await page.goto(`${b.url}/sessions/shared`);
    await expect(page.getByTestId("signed-in-as")).toContainText("lead@example.com · lead");
    await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
    const navigations: string[] = [];
    page.on("framenavigated", (frame) => frame === page.mainFrame() && navigations.push(frame.url()));

    // Written through A, shown by B's page without a reload; then the other way round.
    await ok(["--url", a.url, "--token", token, "--agent-id", "orchestrator", "create-task-group", "via_a", "shared", "Written through A"]);
    await expect(page.getByTestId("column-pending").getByTestId("task-via_a")).toBeVisible({ timeout: 15_000 });
    const onA = await context.newPage();
    await onA.goto(`${a.url}/sessions/shared`);
    await expect(onA.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
    await ok(["--url", b.url, "--token", agent, "--agent-id", "developer_1", "claim", "shared", "via_a", "--evidence", "written through B"]);
    await expect(onA.getByTestId("column-claimed").getByTestId("task-via_a")).toContainText("developer_1", { timeout: 15_000 });
    await expect(page.getByTestId("column-claimed").getByTestId("task-via_a")).toBeVisible({ timeout: 15_000 });
    expect(navigations, "B's page was not reloaded").toEqual([]);

    // Two servers, one task machine: a claimant verifying through the other server is still refused.
    const refused = await proofgate(
      [
        "--url",
        a.url,
        "--token",
        verifier,
        "--agent-id",
        "developer_1",
        "verify",
        "shared",
        "via_a",
        "--proofpack",
        '{"verdict":"PASSED","checks":[{"name":"unit","passed":true}]}',
      ],
      SECRET,
    );
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain("developer_1 claimed this task and cannot verify it");
    await context.close();
    // Stopped as an operator stops them: each exits by itself (its pools do not hold it open).
    const stopped = await Promise.all([a.running.interrupt(), b.running.interrupt()]);
    expect(stopped.map((s) => s.code)).toEqual([0, 0]);
  } finally {
    await Promise.all([a.running.interrupt(), b.running.interrupt()]);
  }
});

test("a server killed mid-write leaves no half-written action, and the other goes on serving", async ({ browser }) => {
  const databaseUrl = await cluster!.createDatabase("one_killed");
  await ok(["--database-url", databaseUrl, "migrate"]);
  const token = await agentToken(databaseUrl, "orchestrator", "orchestrator");
  const agent = await agentToken(databaseUrl, "developer", "agent");
  const [a, b] = await Promise.all([serve(databaseUrl), serve(databaseUrl)]);
  try {
    await Promise.all([listening(a), listening(b)]);
    await ok(["--url", b.url, "--token", token, "--agent-id", "orchestrator", "create-session", "survivor", "parallel", "One server killed"]);

    // Keep A busy with writes (each action: the task row, its transition, its event), then kill it.
    const create = (key: string) =>
      fetch(`${a.url}/api/trpc/task.create`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ json: { sessionId: "survivor", key, title: `Written through A: ${key}` } }),
      }).then(
        (response) => response.status,
        () => "cut",
      );
    let answered = 0;
    const inFlight = Array.from({ length: 300 }, (_, n) =>
      create(`a_${n}`).then((outcome) => {
        if (outcome === 200) answered += 1;
        return outcome;
      }),
    );
    // Killed while writing: after its first answers, with most of the requests still in flight.
    await until(() => answered >= 5, "A's first answers", 60_000);
    a.running.child.kill("SIGKILL");
    const outcomes = await Promise.all(inFlight);
    const killed = await a.running.done;
    expect(killed.code).toBeNull();
    expect(
      outcomes.some((o) => o === "cut"),
      `some requests to A were cut by the kill: ${outcomes.join(",")}`,
    ).toBe(true);

    // B goes on serving: writes (the writer lock a killed connection held is gone with it) and pages.
    await ok(["--url", b.url, "--token", token, "--agent-id", "orchestrator", "create-task-group", "after_kill", "survivor", "Written through B after A died"]);
    await ok(["--url", b.url, "--token", agent, "--agent-id", "developer_1", "claim", "survivor", "after_kill", "--evidence", "B still serves"]);
    const page = await (await browser.newContext()).newPage();
    await ok(["--database-url", databaseUrl, "user", "create", "--email", "lead@example.com", "--password", PASSWORD, "--role", "lead"]);
    await signIn(page, b.url, "lead@example.com");
    await page.goto(`${b.url}/sessions/survivor`);
    await expect(page.getByTestId("column-claimed").getByTestId("task-after_kill")).toBeVisible();

    // Every task A wrote is whole: its creation transition and its event are there, or none of it is.
    const tasks = await query<{ key: string; transitions: number; events: number }>(
      databaseUrl,
      `SELECT t.key, (SELECT count(*)::int FROM task_transitions x WHERE x.task_id = t.id AND x.move = 'create') AS transitions,
              (SELECT count(*)::int FROM events e WHERE e.entity = 'task' AND e.entity_id = t.id::text AND e.type = 'task.created') AS events
         FROM tasks t WHERE t.session_id = 'survivor' AND t.key LIKE 'a\\_%'`,
    );
    expect(tasks.length, "every task A answered 200 for was committed").toBeGreaterThanOrEqual(outcomes.filter((o) => o === 200).length);
    for (const task of tasks) expect(task, `task ${task.key}`).toEqual({ key: task.key, transitions: 1, events: 1 });
  } finally {
    await Promise.all([a.running.interrupt(), b.running.interrupt()]);
  }
});
