/**
 * `proofgate check` and `proofgate purge` as a script sees them: exit codes, what they print, and
 * that a purge asks first, can be previewed, and refuses bad dates before touching the file.
 */
import { nextMillisecond } from "@/test/support/clock";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { type CliResult, cli, count, removeWorkspaces, workspace } from "@/test/support/cli-harness";

vi.setConfig({ testTimeout: 60_000 });
afterAll(removeWorkspaces);

async function ok(db: string, ...args: string[]): Promise<CliResult> {
  const run = await cli([...args, "--db", db]);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

/** A session with a task verified by another agent and completed, and one criterion met. */
async function ledger(session = "s"): Promise<string> {
  const { db } = workspace();
  await ok(db, "create-session", session, "simple", "req");
  await ok(db, "create-task-group", "A", session, "Group A");
  await ok(db, "claim", session, "A", "--agent-id", "developer_1");
  await ok(db, "verify", session, "A", "--check", "tests=pass", "--agent-id", "qa_1");
  await ok(db, "complete", session, "A");
  await ok(db, "save-success-criteria", session, '["Tests pass"]');
  await ok(db, "update-success-criterion", session, "Tests pass", "--status", "met");
  return db;
}

function raw(db: string, sql: string): void {
  const handle = new Database(db);
  try {
    handle.prepare(sql).run();
  } finally {
    handle.close();
  }
}

describe("proofgate check", () => {
  it("exits 0 on a clean ledger and says every invariant holds", async () => {
    const db = await ledger();
    const text = await ok(db, "check");
    expect(text.stdout).toMatch(new RegExp(`^${db.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: every invariant holds\n {2}ok {4}database\\.integrity\n`));
    expect(text.stdout).toMatch(/checked .*tasks 1, task_transitions 4/);
    const json = JSON.parse((await ok(db, "check", "--json")).stdout) as { ok: boolean; findings: unknown[]; database: string };
    expect(json).toMatchObject({ ok: true, findings: [], database: db });
  });

  it("exits 1 naming what it found, in text and in --json", async () => {
    const db = await ledger();
    raw(db, "UPDATE success_criteria SET status = 'failed'");
    const text = await cli(["check", "--db", db]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('  FAIL  criterion.history (1)\n          - criterion "Tests pass" (s): status is "failed", update 2 says "met"\n');
    expect(text.stderr).toBe(`proofgate: ${db}: criterion.history 1\n`);
    const json = await cli(["check", "--db", db, "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      counts: { "criterion.history": 1 },
      findings: [{ invariant: "criterion.history", table: "success_criteria", sessionId: "s" }],
    });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { rule: "check.failed" } });
  });

  it("refuses remote mode and a missing file", async () => {
    const { db } = workspace();
    expect(await cli(["check", "--db", db])).toMatchObject({ code: 4, stderr: `proofgate: database unavailable: no database at ${db}\n` });
    const remote = await cli(["check", "--url", "http://127.0.0.1:9"], { env: { PROOFGATE_DB: undefined } });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("check: runs in local mode only");
  });
});

describe("proofgate purge", () => {
  async function ended(): Promise<{ db: string; before: string }> {
    const db = await ledger("old");
    await ok(db, "create-session", "live", "simple", "still running");
    await ok(db, "update-session-status", "old", "failed");
    return { db, before: (await nextMillisecond()).toISOString() };
  }

  it("previews with --dry-run, asks unless --yes, then purges and records it", async () => {
    const { db, before } = await ended();
    const preview = await ok(db, "purge", "--before", before, "--dry-run");
    expect(preview.stdout).toMatch(
      new RegExp(`^would purge 1 session ended before ${before.replace(/[.]/g, "\\.")}: old\n {2}rows: .*tasks 1, .*sessions 1\n$`),
    );
    const unasked = await cli(["purge", "--before", before, "--db", db]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain("--yes: purge asks for confirmation");
    expect(count(db, "SELECT 1 FROM sessions")).toBe(2);
    const done = JSON.parse((await ok(db, "purge", "--before", before, "--yes", "--json")).stdout) as {
      purgeId: number;
      sessions: string[];
      rows: Record<string, number>;
    };
    expect(done).toMatchObject({ purgeId: 1, sessions: ["old"], rows: { sessions: 1, tasks: 1, task_transitions: 4, criterion_updates: 2 } });
    expect(count(db, "SELECT 1 FROM sessions WHERE id = 'live'")).toBe(1);
    expect(count(db, "SELECT 1 FROM purges WHERE finished_at IS NOT NULL AND sessions_deleted = 1")).toBe(1);
    await ok(db, "check");
    expect((await ok(db, "purge", "--before", before, "--yes")).stdout).toBe(`no session ended before ${before}: nothing to purge\n`);
  });

  /** The bundled executable at a terminal (a pseudo-terminal from util-linux `script`), answering the prompt. */
  function atTerminal(db: string, before: string, answer: string): Promise<{ code: number | null; output: string }> {
    const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bin", "proofgate.mjs");
    const child = spawn("script", ["-qec", `"${process.execPath}" "${bin}" --db "${db}" purge --before ${before}`, "/dev/null"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("[y/N]") && child.stdin.writable) child.stdin.end(`${answer}\n`);
    });
    return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
  }

  it.runIf(fs.existsSync("/usr/bin/script"))("at a terminal, asks first: no keeps everything, yes purges", async () => {
    const { db, before } = await ended();
    const no = await atTerminal(db, before, "n");
    expect(no.output).toContain("Purge 1 session and these rows for good? [y/N]");
    expect(no.output).toContain("purge: not confirmed; nothing was removed");
    expect(no.code).toBe(2);
    expect(count(db, "SELECT 1 FROM sessions")).toBe(2);
    const yes = await atTerminal(db, before, "y");
    expect(yes.code).toBe(0);
    expect(yes.output).toMatch(/purged 1 session ended before .* \(purge #1\): old/);
    expect(count(db, "SELECT 1 FROM sessions")).toBe(1);
  });

  it.each([
    [["--before", "last tuesday"], "--before"],
    [["--before", "2026-13-45"], "--before"],
    [[], "--before"],
  ])("%j exits 2 naming %s", async (args, name) => {
    const { db } = await ended();
    const run = await cli(["purge", ...args, "--yes", "--db", db]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(name);
    expect(count(db, "SELECT 1 FROM sessions")).toBe(2);
  });

  it("refuses a date in the future (exit 2)", async () => {
    const { db } = await ended();
    const run = await cli(["purge", "--before", "2999-01-01", "--yes", "--db", db]);
    expect(run).toMatchObject({ code: 2, stderr: "proofgate: before: must not be in the future\n" });
  });
});
