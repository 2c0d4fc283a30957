/**
 * The built `proofgate` command line against the real running server (remote mode: `--url` and an API
 * token per role) and, for comparison, against a fresh database file (local mode) — every call a
 * child process of bin/proofgate.mjs. 000's Tests 1, 3, 4, 5 and 6 and 004's two lifecycles are
 * written once and run in both modes; then the refusals over HTTP (roles, the claimant rule, revoked
 * and missing tokens), the exit codes, and the live event stream fed by a separate local-mode process.
 *
 * No browser: `test` comes from @playwright/test (./fixtures' auto fixture would open a page), and
 * the spec runs in the desktop project only.
 */
// flake-risks wait: absence check: room for a repeat or a stray write to show; a slow machine can only make it miss one, never fail
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { E2E_DB } from "../playwright.config";
import {
  type CliResult,
  type IssuedToken,
  type Mode,
  ROLES_USED,
  type Who,
  jsonLines,
  localMode,
  proofgate,
  remoteMode,
  removeWorkspaces,
  rows,
  start,
  tcpProxy,
  uniqueId,
  until,
  workspace,
} from "./cli-helpers";

const PORT = Number(process.env.PROOFGATE_E2E_PORT);
const URL = `http://127.0.0.1:${PORT}`;

interface EventLine {
  id: number;
  type: string;
  sessionId: string | null;
  actor: string;
  principalId: string;
  role: string;
  data: Record<string, unknown>;
}

let tokens: Record<Who, IssuedToken>;
const modes: Partial<Record<Mode["name"], Mode>> = {};
const mode = (name: Mode["name"]): Mode => modes[name]!;

test.describe.configure({ mode: "serial", timeout: 60_000 });

test.beforeAll(async ({}, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "the command line runs once, without a browser");
  // Tokens are made by the machine's operator: local mode on the server's own database file.
  const issued = await Promise.all(
    Object.entries(ROLES_USED).map(async ([who, role]) => {
      const run = await ok(["--db", E2E_DB, "--json"], "token", "create", "--name", uniqueId(`e2e-cli-${who}`), "--role", role);
      const token = JSON.parse(run.stdout) as IssuedToken;
      expect(token).toMatchObject({ id: expect.any(Number), token: expect.stringMatching(/^pg_/), role });
      return [who, token] as const;
    }),
  );
  tokens = Object.fromEntries(issued) as Record<Who, IssuedToken>;
  modes.remote = remoteMode(URL, E2E_DB, tokens);
  const local = path.join(workspace(), "local.db");
  await ok(["--db", local], "migrate");
  modes.local = localMode(local);
});

test.afterAll(removeWorkspaces);

/** A call that must succeed, printing nothing on stderr. */
async function ok(as: string[], ...args: string[]): Promise<CliResult> {
  const run = await proofgate([...as, ...args]);
  expect({ args, code: run.code, stderr: run.stderr }, `proofgate ${args.join(" ")}`).toEqual({ args, code: 0, stderr: "" });
  return run;
}

/** A call that must fail with this exit code. */
async function refused(code: number, as: string[], ...args: string[]): Promise<CliResult> {
  const run = await proofgate([...as, ...args]);
  expect({ args, code: run.code }, `proofgate ${args.join(" ")}\n${run.stderr}`).toEqual({ args, code });
  return run;
}

/** A tRPC query straight over HTTP (superjson on the wire), as the server answers it. */
async function trpcQuery(
  procedure: string,
  input: unknown,
  token?: string,
): Promise<{ status: number; body: { result?: { data: { json: unknown } }; error?: { json: unknown } } }> {
  const response = await fetch(`${URL}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: (await response.json()) as never };
}

const criteriaOf = async (m: Mode, session: string) =>
  JSON.parse((await ok(m.as("viewer"), "get-success-criteria", session)).stdout) as Record<string, unknown>[];

/** 000: success criteria and the BAZINGA completion check. 004: the two-phase-commit task lifecycles. */
const scenarios: [string, (m: Mode) => Promise<void>][] = [
  [
    "000 Test 1 — new session, happy path: criteria saved pending, updated with evidence, completion accepted",
    async (m) => {
      const s = uniqueId("t1");
      await ok(m.as("orchestrator"), "create-session", s, "simple", "Fix all bugs");
      await ok(
        m.as("orchestrator"),
        "save-success-criteria",
        s,
        '[{"criterion":"All bugs fixed"},{"criterion":"All tests passing"},{"criterion":"No regressions","required_for_completion":true}]',
      );
      expect((await criteriaOf(m, s)).map((c) => [c.criterion, c.status, c.required_for_completion])).toEqual([
        ["All bugs fixed", "pending", true],
        ["All tests passing", "pending", true],
        ["No regressions", "pending", true],
      ]);
      // The work itself, through the task machine: claimed by one agent, verified by another.
      await ok(m.as("orchestrator"), "create-task-group", "fix", s, "Fix the bugs", "in_progress", "developer_1");
      await ok(m.as("developer_1"), "claim", s, "fix", "--evidence", `artifacts/${s}/tests.txt`);
      await ok(m.as("verifier", "qa_expert_1"), "verify", s, "fix", "--check", "tests=pass");
      await ok(m.as("orchestrator"), "complete", s, "fix");
      for (const criterion of ["All bugs fixed", "All tests passing", "No regressions"]) {
        await ok(
          m.as("orchestrator", "project_manager"),
          "update-success-criterion",
          s,
          criterion,
          "--status",
          "met",
          "--actual",
          "711/711 tests passing",
          "--evidence",
          `artifacts/${s}/test-results.txt`,
        );
      }
      expect((await criteriaOf(m, s)).map((c) => [c.status, c.actual, c.evidence])).toEqual(
        Array(3).fill(["met", "711/711 tests passing", `artifacts/${s}/test-results.txt`]),
      );
      const gate = await ok(m.as("orchestrator"), "check-completion", s);
      expect(gate.stdout).toMatch(new RegExp(`^Completion check #\\d+ for ${s}: ACCEPTED \\(3/3 required criteria met\\)\\n$`));
      await ok(m.as("orchestrator"), "update-session-status", s, "completed");
      expect(rows(m.db, "SELECT status FROM sessions WHERE id = ?", s)).toEqual([{ status: "completed" }]);
      expect(
        rows(m.db, "SELECT status, verification, claimed_by, claimed_by_principal, verified_by, verified_by_principal FROM tasks WHERE session_id = ?", s),
      ).toEqual([
        {
          status: "completed",
          verification: "verified",
          claimed_by: "developer_1",
          claimed_by_principal: m.principal("developer_1"),
          verified_by: "qa_expert_1",
          verified_by_principal: m.principal("verifier"),
        },
      ]);
    },
  ],
  [
    "000 Test 3 — concurrent updates of two criteria by two agents both succeed",
    async (m) => {
      const s = uniqueId("t3");
      await ok(m.as("orchestrator"), "create-session", s, "parallel", "Three criteria");
      await ok(m.as("orchestrator"), "save-success-criteria", s, '["A","B","C"]');
      const [a, b] = await Promise.all([
        proofgate([...m.as("developer_1", "pm_1"), "update-success-criterion", s, "A", "--status", "met"]),
        proofgate([...m.as("developer_2", "pm_2"), "update-success-criterion", s, "B", "--status", "met"]),
      ]);
      expect([a.code, a.stderr, b.code, b.stderr]).toEqual([0, "", 0, ""]);
      expect((await criteriaOf(m, s)).map((c) => [c.criterion, c.status])).toEqual([
        ["A", "met"],
        ["B", "met"],
        ["C", "pending"],
      ]);
      expect(rows(m.db, "SELECT actor, principal_id, to_status FROM criterion_updates WHERE session_id = ? AND kind = 'claim' ORDER BY actor", s)).toEqual([
        { actor: "pm_1", principal_id: m.principal("developer_1") ?? "operator", to_status: "met" },
        { actor: "pm_2", principal_id: m.principal("developer_2") ?? "operator", to_status: "met" },
      ]);
    },
  ],
  [
    "000 Test 4 — saving the same criteria again leaves one row each (UPSERT)",
    async (m) => {
      const s = uniqueId("t4");
      await ok(m.as("orchestrator"), "create-session", s, "simple", "Duplicates");
      const list = '[{"criterion":"All tests passing","status":"pending"},{"criterion":"Coverage >70%","status":"pending"}]';
      await ok(m.as("orchestrator"), "save-success-criteria", s, list);
      const second = await ok(m.as("orchestrator"), "save-success-criteria", s, list);
      expect(second.stdout).toBe(`✓ Saved 2 success criteria for session ${s}\n`);
      expect(await criteriaOf(m, s)).toHaveLength(2);
      expect(rows(m.db, "SELECT criterion FROM success_criteria WHERE session_id = ? ORDER BY id", s)).toEqual([
        { criterion: "All tests passing" },
        { criterion: "Coverage >70%" },
      ]);
    },
  ],
  [
    "000 Test 5 — a criterion's text cannot change; a superseding criterion keeps both",
    async (m) => {
      const s = uniqueId("t5");
      await ok(m.as("orchestrator"), "create-session", s, "simple", "Immutability");
      await ok(m.as("orchestrator"), "save-success-criteria", s, '[{"criterion":"50 tests passing"}]');
      // No command edits the text: not update-success-criterion, and not `query`.
      const flag = await refused(2, m.as("orchestrator"), "update-success-criterion", s, "50 tests passing", "--criterion", "ALL tests passing");
      expect(flag.stderr).toContain("unknown option '--criterion'");
      const sql = await refused(2, m.as("orchestrator"), "query", "UPDATE success_criteria SET criterion = 'ALL tests passing'");
      expect(sql.stderr).toContain(m.name === "local" ? "sql: only a single read-only SELECT is allowed" : "query: runs in local mode only");
      // Nor does raw SQL behind the command line's back: the trigger refuses it.
      const raw = new Database(m.db, { timeout: 5_000 });
      try {
        expect(() => raw.prepare("UPDATE success_criteria SET criterion = 'ALL tests passing' WHERE session_id = ?").run(s)).toThrow(/criter/i);
      } finally {
        raw.close();
      }
      await ok(m.as("orchestrator"), "save-success-criteria", s, '[{"criterion":"ALL tests passing","supersedes":"50 tests passing"}]');
      const [first, second] = await criteriaOf(m, s);
      expect([first, second]).toMatchObject([
        { criterion: "50 tests passing", supersedes_id: null },
        { criterion: "ALL tests passing", supersedes_id: first!.id },
      ]);
      expect(rows(m.db, "SELECT criterion FROM success_criteria WHERE session_id = ? ORDER BY id", s)).toEqual([
        { criterion: "50 tests passing" },
        { criterion: "ALL tests passing" },
      ]);
    },
  ],
  [
    "000 Test 6 — BAZINGA with 2 of 3 criteria met is rejected, and an enforce session stays active",
    async (m) => {
      const s = uniqueId("t6");
      await ok(m.as("orchestrator"), "create-session", s, "simple", "Reject");
      await ok(m.as("orchestrator"), "save-success-criteria", s, '["A","B","C"]');
      await ok(m.as("developer_1"), "update-success-criterion", s, "A", "--status", "met");
      await ok(m.as("developer_1"), "update-success-criterion", s, "B", "--status", "met");
      const gate = await refused(1, m.as("orchestrator"), "check-completion", s, "--claimed-verdict", "BAZINGA");
      expect(gate.stdout).toContain("REJECTED (2/3 required criteria met)");
      expect(gate.stdout).toContain("  - Only 2/3 criteria met\n");
      expect(gate.stdout).toContain('  - Criterion "C" is not met: pending');
      expect(gate.stderr).toContain("the completion gate rejected it");
      const json = await refused(1, [...m.as("orchestrator"), "--json"], "check-completion", s);
      expect(JSON.parse(json.stdout)).toMatchObject({
        accepted: false,
        metCount: 2,
        totalCount: 3,
        reasons: expect.arrayContaining(["Only 2/3 criteria met"]),
      });
      const close = await refused(1, m.as("orchestrator"), "update-session-status", s, "completed");
      expect(close.stderr).toContain("Only 2/3 criteria met");
      expect(rows(m.db, "SELECT status FROM sessions WHERE id = ?", s)).toEqual([{ status: "active" }]);
      expect(rows(m.db, "SELECT accepted, claimed_verdict FROM completion_checks WHERE session_id = ? ORDER BY id", s)).toEqual([
        { accepted: 0, claimed_verdict: "BAZINGA" },
        { accepted: 0, claimed_verdict: null },
        { accepted: 0, claimed_verdict: null },
      ]);
    },
  ],
  [
    "004 login screen — pending → in_progress → claimed → verified → completed, the claimant never verifying",
    async (m) => {
      const s = uniqueId("ios");
      const orchestrator = m.as("orchestrator", "workflow-orchestrator");
      const developer = m.as("developer_1", "swiftui-developer");
      await ok(orchestrator, "create-session", s, "simple", "iOS app");
      await ok(orchestrator, "create-task-group", "login", s, "Implement login screen", "pending", "swiftui-developer");
      await ok(orchestrator, "start", s, "login");
      const early = await refused(1, orchestrator, "complete", s, "login");
      expect(early.stderr).toContain("cannot complete a in_progress task");
      await ok(developer, "claim", s, "login", "--evidence", '["screenshots/login.png","test-output.txt"]');
      // The verifier's token acting under the claimant's label: refused by label.
      const own = await refused(1, m.as("verifier", "swiftui-developer"), "verify", s, "login", "--check", "build=pass");
      expect(own.stderr).toContain("swiftui-developer claimed this task and cannot verify it");
      const skip = await refused(1, orchestrator, "complete", s, "login");
      expect(skip.stderr).toContain("cannot complete a claimed task");
      const verified = await ok(
        [...m.as("verifier", "verification-agent"), "--json"],
        "verify",
        s,
        "login",
        "--check",
        "build=pass",
        "--check",
        "browser_screenshot=pass",
      );
      expect(JSON.parse(verified.stdout)).toMatchObject({
        status: "verified",
        verifiedBy: "verification-agent",
        claimedBy: "swiftui-developer",
        proofpack: {
          verdict: "PASSED",
          checks: [
            { name: "build", passed: true },
            { name: "browser_screenshot", passed: true },
          ],
        },
      });
      await ok(orchestrator, "complete", s, "login");
      expect(rows(m.db, "SELECT status, verification, claimed_by, verified_by, completed_by, evidence FROM tasks WHERE session_id = ?", s)).toEqual([
        {
          status: "completed",
          verification: "verified",
          claimed_by: "swiftui-developer",
          verified_by: "verification-agent",
          completed_by: "workflow-orchestrator",
          evidence: '["screenshots/login.png","test-output.txt"]',
        },
      ]);
      expect(rows(m.db, "SELECT move, from_status, to_status, actor FROM task_transitions WHERE session_id = ? ORDER BY id", s)).toEqual([
        { move: "create", from_status: null, to_status: "pending", actor: "workflow-orchestrator" },
        { move: "start", from_status: "pending", to_status: "in_progress", actor: "workflow-orchestrator" },
        { move: "claim", from_status: "in_progress", to_status: "claimed", actor: "swiftui-developer" },
        { move: "verify", from_status: "claimed", to_status: "verified", actor: "verification-agent" },
        { move: "complete", from_status: "verified", to_status: "completed", actor: "workflow-orchestrator" },
      ]);
      const [group] = JSON.parse((await ok(m.as("viewer"), "--json", "get-task-groups", s)).stdout) as Record<string, unknown>[];
      expect(group).toMatchObject({
        id: "login",
        status: "completed",
        verification: "verified",
        claimed_by: "swiftui-developer",
        verified_by: "verification-agent",
        completed_by: "workflow-orchestrator",
      });
    },
  ],
  [
    "004 dashboard UI — blocked with failures, a reset request declined, another approved, re-done; the failed attempt kept",
    async (m) => {
      const s = uniqueId("web");
      const dir = workspace();
      const orchestrator = m.as("orchestrator", "workflow-orchestrator");
      const developer = m.as("developer_1", "react-18-specialist");
      const verifier = m.as("verifier", "verification-agent");
      await ok(orchestrator, "create-session", s, "simple", "Dashboard");
      await ok(orchestrator, "create-task-group", "dash", s, "Implement dashboard UI");
      await ok(developer, "claim", s, "dash", "--evidence", "screenshots/dashboard.png");
      const failures = ["browser_screenshot - Screenshot missing", "component_tests - 3 tests failing", "visual_review - /visual-review not run"];
      fs.writeFileSync(path.join(dir, "failures.json"), JSON.stringify(failures));
      const proofpack = {
        verdict: "BLOCKED",
        checks: [{ name: "component_tests", passed: false, detail: "3 failing" }],
        path: ".orchestration/proofpacks/dashboard-ui.json",
      };
      fs.writeFileSync(path.join(dir, "proofpack.json"), JSON.stringify(proofpack));
      await ok(verifier, "block", s, "dash", "--failures", `@${path.join(dir, "failures.json")}`, "--proofpack", `@${path.join(dir, "proofpack.json")}`);
      expect(rows(m.db, "SELECT status, failures, blocked_by FROM tasks WHERE session_id = ?", s)).toEqual([
        { status: "blocked", failures: JSON.stringify(failures), blocked_by: "verification-agent" },
      ]);
      expect((await refused(1, orchestrator, "complete", s, "dash")).stderr).toContain("cannot complete a blocked task");
      expect((await refused(1, verifier, "verify", s, "dash", "--check", "x=pass")).stderr).toContain("cannot verify a blocked task");
      await ok(orchestrator, "request-reset", s, "dash", "--reason", "screenshot added");
      if (m.name === "remote") {
        // Only a person (lead or admin) declines a reset request.
        expect((await refused(1, orchestrator, "decline-reset", s, "dash", "--reason", "self-declined")).stderr).toContain("role orchestrator may not");
      }
      // Declined: the task stays blocked, the request closed; the orchestrator may ask again.
      await ok(m.as("lead", "lead_1"), "decline-reset", s, "dash", "--reason", "the component tests still fail");
      expect(rows(m.db, "SELECT status, reset_requested FROM tasks WHERE session_id = ?", s)).toEqual([{ status: "blocked", reset_requested: 0 }]);
      await ok(orchestrator, "request-reset", s, "dash", "--reason", "fixed the three failures");
      if (m.name === "remote") {
        // Only a person (lead or admin) approves a reset.
        expect((await refused(1, orchestrator, "approve-reset", s, "dash", "--reason", "self-approved")).stderr).toContain("role orchestrator may not");
      }
      await ok(m.as("lead", "lead_1"), "approve-reset", s, "dash", "--reason", "retry with the fixes");
      // Pending again, the reset counted; the failed attempt stays on the record.
      const [reset] = JSON.parse((await ok(m.as("viewer"), "--json", "get-task-groups", s)).stdout) as Record<string, unknown>[];
      expect(reset).toMatchObject({ id: "dash", status: "pending", reset_count: 1, claimed_by: null, failures: null });
      const events = jsonLines<EventLine>((await ok(m.as("viewer"), "events", "--session", s)).stdout);
      expect(events.map((e) => e.type)).toEqual([
        "session.created",
        "task.created",
        "task.claimed",
        "task.blocked",
        "task.reset_requested",
        "task.reset_declined",
        "task.reset_requested",
        "task.reset_approved",
      ]);
      expect(events.find((e) => e.type === "task.blocked")).toMatchObject({
        actor: "verification-agent",
        data: { key: "dash", from: "claimed", to: "blocked" },
      });
      // get-task shows the whole history: the blocked attempt, with its claim and failures, survives the reset.
      const history = JSON.parse((await ok(m.as("viewer"), "--json", "get-task", s, "dash")).stdout) as {
        status: string;
        transitions: Record<string, unknown>[];
      };
      expect(history.status).toBe("pending");
      expect(history.transitions.map((t) => [t.move, t.fromStatus, t.toStatus, t.actor])).toEqual([
        ["create", null, "pending", "workflow-orchestrator"],
        ["claim", "pending", "claimed", "react-18-specialist"],
        ["block", "claimed", "blocked", "verification-agent"],
        ["request_reset", "blocked", "blocked", "workflow-orchestrator"],
        ["decline_reset", "blocked", "blocked", "lead_1"],
        ["request_reset", "blocked", "blocked", "workflow-orchestrator"],
        ["approve_reset", "blocked", "pending", "lead_1"],
      ]);
      expect(history.transitions[1]).toMatchObject({ evidence: ["screenshots/dashboard.png"], role: m.name === "remote" ? "agent" : "admin" });
      expect(history.transitions[2]).toMatchObject({ claimant: "react-18-specialist", failures, proofpack, role: m.name === "remote" ? "verifier" : "admin" });
      const pretty = (await ok(m.as("viewer"), "get-task", s, "dash")).stdout;
      expect(pretty).toMatch(/claimed → blocked\s+block\s+by verification-agent/);
      expect(pretty).toContain("failures: browser_screenshot - Screenshot missing; component_tests - 3 tests failing");
      expect(pretty).toMatch(/blocked → pending\s+approve_reset\s+by lead_1 \((lead|admin)\)\n\s+reason: retry with the fixes/);
      expect(rows(m.db, "SELECT move, claimant, failures, proofpack FROM task_transitions WHERE session_id = ? AND move = 'block'", s)).toEqual([
        { move: "block", claimant: "react-18-specialist", failures: JSON.stringify(failures), proofpack: JSON.stringify(proofpack) },
      ]);
      await ok(developer, "claim", s, "dash", "--evidence", "screenshots/dashboard-v2.png");
      await ok(verifier, "verify", s, "dash", "--proofpack", '{"verdict":"PASSED","checks":[{"name":"component_tests","passed":true}]}');
      await ok(orchestrator, "complete", s, "dash");
      const [done] = JSON.parse((await ok(m.as("viewer"), "--json", "get-task-groups", s)).stdout) as Record<string, unknown>[];
      expect(done).toMatchObject({ id: "dash", status: "completed", verification: "verified", reset_count: 1, evidence: ["screenshots/dashboard-v2.png"] });
      expect(rows<{ move: string }>(m.db, "SELECT move FROM task_transitions WHERE session_id = ? ORDER BY id", s).map((t) => t.move)).toEqual([
        "create",
        "claim",
        "block",
        "request_reset",
        "decline_reset",
        "request_reset",
        "approve_reset",
        "claim",
        "verify",
        "complete",
      ]);
    },
  ],
  [
    "exit codes — 2 for a bad argument, 3 for an unknown session or task, 4 when Proofgate cannot be reached",
    async (m) => {
      const s = uniqueId("exit");
      await ok(m.as("orchestrator"), "create-session", s, "simple", "Exit codes");
      await ok(m.as("orchestrator"), "create-task-group", "t", s, "A task");
      expect((await refused(2, m.as("verifier"), "verify", s, "t")).stderr).toContain("--check: a verify needs at least one check");
      expect((await refused(2, m.as("orchestrator"), "create-session", "bad id!", "simple", "x")).stderr).toContain(
        "may contain only letters, digits and . _ : -",
      );
      expect((await refused(2, [...m.as("orchestrator"), "--json"], "save-success-criteria", s, '[{"criterion":""}]')).stderr).toContain("must not be empty");
      const missing = `${s}-missing`;
      expect((await refused(3, m.as("viewer"), "get-session", missing)).stderr).toContain(`session "${missing}" does not exist`);
      await refused(3, m.as("developer_1"), "claim", missing, "t");
      await refused(3, m.as("developer_1"), "claim", s, "no-such-task");
      const away = await refused(4, await m.unreachable(), "get-session", s);
      expect(away.stderr).toMatch(m.name === "remote" ? /server unreachable/ : /database unavailable/);
      // Nothing was written by the refused calls.
      expect(rows(m.db, "SELECT status FROM tasks WHERE session_id = ?", s)).toEqual([{ status: "pending" }]);
      expect(rows(m.db, "SELECT count(*) AS n FROM success_criteria WHERE session_id = ?", s)).toEqual([{ n: 0 }]);
    },
  ],
];

// Each scenario runs in both modes at once (separate databases, so they cannot interfere): every call
// is a process start of about half a second, and this halves the wait.
for (const [title, scenario] of scenarios) {
  test(title, async () => {
    const names = ["remote", "local"] as const;
    const results = await Promise.allSettled(names.map((name) => test.step(`${name} mode`, () => scenario(mode(name)))));
    const failures = results.flatMap((result, i) => (result.status === "rejected" ? [{ mode: names[i], error: result.reason as Error }] : []));
    if (failures.length === 0) return;
    // Rethrow the first failure itself (its stack points at the failing line), naming the mode.
    const [first, ...others] = failures;
    first!.error.message = [first!, ...others].map((f) => `${f.mode} mode: ${f.error.message}`).join("\n\n");
    throw first!.error;
  });
}

test.describe("remote mode: roles and tokens over HTTP", () => {
  test("a viewer cannot write, an agent cannot verify, a claimant cannot verify its own claim", async () => {
    const m = mode("remote");
    const s = uniqueId("roles");
    await ok(m.as("orchestrator"), "create-session", s, "simple", "Roles");
    await ok(m.as("orchestrator"), "create-task-group", "t", s, "A task");
    const [session, criteria, viewerClaim, verifierClaim] = await Promise.all([
      refused(1, m.as("viewer"), "create-session", `${s}-viewer`, "simple", "x"),
      refused(1, m.as("viewer"), "save-success-criteria", s, '["A"]'),
      refused(1, m.as("viewer"), "claim", s, "t"),
      refused(1, m.as("verifier"), "claim", s, "t"),
    ]);
    expect(session.stderr).toContain("role viewer may not create sessions");
    expect(criteria.stderr).toContain("role viewer may not save success criteria");
    expect(viewerClaim.stderr).toContain("role viewer may not claim a task");
    expect(verifierClaim.stderr).toContain("role verifier may not claim a task");
    await ok(m.as("developer_1"), "claim", s, "t", "--evidence", "out.txt");
    // With --json the refusal names the rule.
    const agent = await refused(1, [...m.as("developer_2"), "--json"], "verify", s, "t", "--check", "tests=pass");
    expect(JSON.parse(agent.stderr)).toEqual({
      error: { rule: "task.verify_role", message: "role agent may not verify a task (allowed: verifier, lead, admin)" },
    });
    // A verifier acting under the claimant's label is refused (by label).
    const own = await refused(1, [...m.as("verifier", "developer_1"), "--json"], "verify", s, "t", "--check", "tests=pass");
    expect(JSON.parse(own.stderr)).toMatchObject({
      error: { rule: "task.claimant_cannot_verify", message: expect.stringContaining("developer_1 claimed this task and cannot verify it") },
    });
    // One principal under two labels is refused too (by principal): an admin token claims, then tries to verify.
    await ok(m.as("orchestrator"), "create-task-group", "u", s, "Another task");
    await ok(m.as("admin", "admin_as_developer"), "claim", s, "u");
    const samePrincipal = await refused(1, [...m.as("admin", "admin_as_verifier"), "--json"], "verify", s, "u", "--check", "tests=pass");
    expect(JSON.parse(samePrincipal.stderr)).toMatchObject({ error: { rule: "task.claimant_cannot_verify" } });
    await ok(m.as("verifier", "qa_1"), "verify", s, "t", "--check", "tests=pass");
    expect(rows(m.db, "SELECT key, status, claimed_by_principal, verified_by_principal FROM tasks WHERE session_id = ? ORDER BY key", s)).toEqual([
      { key: "t", status: "verified", claimed_by_principal: m.principal("developer_1"), verified_by_principal: m.principal("verifier") },
      { key: "u", status: "claimed", claimed_by_principal: m.principal("admin"), verified_by_principal: null },
    ]);
    // The viewer still reads.
    expect(JSON.parse((await ok(m.as("viewer"), "get-session", s)).stdout)).toMatchObject({ id: s, tasks_total: 2, tasks_verified: 1, tasks_claimed: 1 });
  });

  test("no token and a revoked token are unauthorized; tokens are stored only as hashes", async () => {
    const m = mode("remote");
    const s = uniqueId("auth");
    await ok(m.as("orchestrator"), "create-session", s, "simple", "Auth");
    const [none, noneJson, bogus] = await Promise.all([
      refused(1, ["--url", URL], "get-session", s),
      refused(1, ["--url", URL, "--json"], "create-session", `${s}-none`, "simple", "x"),
      refused(1, ["--url", URL, "--token", "pg_not-a-real-token"], "get-session", s),
    ]);
    expect(none.stderr).toContain("proofgate: auth.required: sign in or send an API token");
    expect(none.stderr).toContain("--token pg_… or PROOFGATE_TOKEN");
    expect(JSON.parse(noneJson.stderr)).toEqual({
      error: { rule: "auth.required", message: "auth.required: sign in or send an API token (Authorization: Bearer …)" },
    });
    expect(bogus.stderr).toContain("proofgate: auth.token: the API token is unknown, revoked or expired");

    const created = JSON.parse(
      (await ok(["--db", E2E_DB, "--json"], "token", "create", "--name", uniqueId("e2e-cli-revoked"), "--role", "agent")).stdout,
    ) as IssuedToken;
    const as = ["--url", URL, "--token", created.token, "--agent-id", "soon_revoked"];
    await ok(as, "create-task-group", "t", s, "Before the revocation");
    await ok(["--db", E2E_DB], "token", "revoke", String(created.id));
    const revoked = await refused(1, as, "create-task-group", "u", s, "After the revocation");
    expect(revoked.stderr).toContain("proofgate: auth.token: the API token is unknown, revoked or expired");
    const revokedJson = await refused(1, [...as, "--json"], "get-session", s);
    expect(JSON.parse(revokedJson.stderr)).toEqual({ error: { rule: "auth.token", message: "auth.token: the API token is unknown, revoked or expired" } });
    const list = await ok(["--db", E2E_DB], "token", "list");
    expect(list.stdout).toMatch(new RegExp(`#${created.id} .*${created.name}\\s+agent\\s+revoked`));
    expect(rows(m.db, "SELECT key FROM tasks WHERE session_id = ?", s)).toEqual([{ key: "t" }]);

    // The same answers straight over HTTP.
    const get = (token?: string) => trpcQuery("session.get", { id: s }, token);
    expect(await get()).toMatchObject({ status: 401, body: { error: { json: { data: { code: "UNAUTHORIZED", rule: "auth.required" } } } } });
    expect(await get(created.token)).toMatchObject({ status: 401, body: { error: { json: { data: { code: "UNAUTHORIZED", rule: "auth.token" } } } } });
    expect(await get(tokens.viewer.token)).toMatchObject({ status: 200, body: { result: { data: { json: { id: s } } } } });
    const write = await fetch(`${URL}/api/trpc/session.create`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.viewer.token}`, "content-type": "application/json" },
      body: JSON.stringify({ json: { id: `${s}-http`, mode: "simple", requirements: "x" } }),
    });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({ error: { json: { data: { code: "FORBIDDEN", rule: "session.create_role" } } } });

    // Never in clear: not in the database file nor its write-ahead log; only the SHA-256 is kept.
    const files = ["", "-wal"].map((suffix) => E2E_DB + suffix).filter((file) => fs.existsSync(file));
    for (const token of [...Object.values(tokens), created]) {
      for (const file of files) expect(fs.readFileSync(file).includes(token.token), `${token.name} in ${path.basename(file)}`).toBe(false);
      expect(rows(E2E_DB, "SELECT token_hash FROM api_tokens WHERE id = ?", token.id)).toEqual([
        { token_hash: createHash("sha256").update(token.token).digest("hex") },
      ]);
    }
  });
});

test.describe("the event stream", () => {
  test("a remote --follow prints an event written by a separate local-mode process; resuming with the last id misses and repeats nothing", async () => {
    const remote = mode("remote");
    const s = uniqueId("live");
    const local = (label: string) => ["--db", E2E_DB, "--agent-id", label];
    await ok(remote.as("orchestrator"), "create-session", s, "simple", "Live");
    await ok(remote.as("orchestrator"), "create-task-group", "t", s, "Watched task");

    const follower = start([...remote.as("viewer"), "events", "--session", s, "--follow"]);
    try {
      // --follow starts from now: write probes (each its own local process) until one is seen, so
      // the follower is known to be listening before the claim.
      const seen = () => jsonLines<EventLine>(follower.stdout());
      for (let probe = 1; seen().length === 0; probe++) {
        expect(probe, "the follower printed none of the probes").toBeLessThanOrEqual(10);
        await ok(local("prober"), "save-event", s, "probe", JSON.stringify({ probe }));
        await until(() => seen().length > 0, "a probe event", 1_500).catch(() => undefined);
      }
      // The write under test: a claim by a separate local-mode process on the server's database.
      await ok(local("developer_1"), "claim", s, "t", "--evidence", "live.txt");
      await until(() => seen().some((e) => e.type === "task.claimed"), "the task.claimed line");
      const claimed = seen().find((e) => e.type === "task.claimed")!;
      expect(claimed).toMatchObject({ sessionId: s, actor: "developer_1", principalId: "operator", data: { key: "t", to: "claimed" } });
      const stopped = await follower.interrupt();
      expect(stopped.code, stopped.stderr).toBe(0);
      const firstRun = jsonLines<EventLine>(stopped.stdout);
      const ids = firstRun.map((e) => e.id);
      expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
      expect(firstRun.every((e) => e.sessionId === s)).toBe(true);

      // While nobody listens: verify and complete. A reconnect with the last id seen gets exactly those.
      const last = ids[ids.length - 1]!;
      await ok(local("qa_expert_1"), "verify", s, "t", "--check", "tests=pass");
      await ok(local("orchestrator"), "complete", s, "t");
      const missed = rows<{ id: number; type: string }>(E2E_DB, "SELECT id, type FROM events WHERE session_id = ? AND id > ? ORDER BY id", s, last);
      expect(missed.map((e) => e.type)).toEqual(["task.verified", "task.completed"]);
      const resumed = start([...remote.as("viewer"), "events", "--session", s, "--since", String(last), "--follow"]);
      try {
        await until(() => jsonLines(resumed.stdout()).length >= missed.length, "the missed events");
        // Give a repeat a chance to show before stopping.
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        await resumed.interrupt();
      }
      const result = await resumed.done;
      expect(result.code, result.stderr).toBe(0);
      expect(jsonLines<EventLine>(result.stdout).map((e) => [e.id, e.type])).toEqual(missed.map((e) => [e.id, e.type]));
    } finally {
      await follower.interrupt();
    }
  });

  test("a remote --follow reads the SSE stream and, when the connection drops, reconnects from the last id: no gap, no repeat", async () => {
    const remote = mode("remote");
    const s = uniqueId("drop");
    const local = (label: string) => ["--db", E2E_DB, "--agent-id", label];
    await ok(remote.as("orchestrator"), "create-session", s, "simple", "Dropped connections");
    await ok(remote.as("orchestrator"), "create-task-group", "t", s, "Watched through outages");
    await ok(remote.as("orchestrator"), "create-session", `${s}-other`, "simple", "Another session's events");

    const proxy = await tcpProxy(PORT);
    const follower = start(["--url", proxy.url, "--token", tokens.viewer.token, "events", "--session", s, "--follow"]);
    let first = 0;
    try {
      const seen = () => jsonLines<EventLine>(follower.stdout());
      for (let probe = 1; seen().length === 0; probe++) {
        expect(probe, "the follower printed none of the probes").toBeLessThanOrEqual(10);
        await ok(local("prober"), "save-event", s, "probe", JSON.stringify({ probe }));
        await until(() => seen().length > 0, "a probe event", 1_500).catch(() => undefined);
      }
      first = seen()[0]!.id;

      // An outage: the connection drops and reconnects are refused while other processes write.
      await proxy.down();
      await ok(local("developer_1"), "claim", s, "t", "--evidence", "outage.txt");
      await ok(local("orchestrator"), "create-task-group", "x", `${s}-other`, "Not followed");
      await ok(local("qa_expert_1"), "verify", s, "t", "--check", "tests=pass");
      await until(() => follower.stderr().includes("event stream lost"), "the follower to notice the drop");
      await proxy.up();
      await until(() => seen().some((e) => e.type === "task.verified"), "the events written during the outage");
      expect(follower.stderr()).toContain("event stream restored");

      // A second drop, the listener back at once.
      await proxy.down();
      await proxy.up();
      await ok(local("orchestrator"), "complete", s, "t");
      await until(() => seen().some((e) => e.type === "task.completed"), "the event after the second drop");
      await new Promise((resolve) => setTimeout(resolve, 500)); // room for a repeat to show
    } finally {
      await follower.interrupt();
      await proxy.close();
    }
    const result = await follower.done;
    expect(result.code, result.stderr).toBe(0);
    const stored = rows<{ id: number; type: string }>(E2E_DB, "SELECT id, type FROM events WHERE session_id = ? AND id >= ? ORDER BY id", s, first);
    expect(stored.map((e) => e.type).slice(-3)).toEqual(["task.claimed", "task.verified", "task.completed"]);
    expect(jsonLines<EventLine>(result.stdout).map((e) => [e.id, e.type])).toEqual(stored.map((e) => [e.id, e.type]));
    // Over the subscription, not by polling the list: one events.stream request per connection.
    const relayed = proxy.requests();
    expect(relayed.filter((r) => r.startsWith("GET /api/trpc/events.stream")).length).toBeGreaterThanOrEqual(3);
    expect(relayed.filter((r) => r.includes("events.list"))).toEqual([]);
  });

  test("events --since returns exactly the events after the id, in order, with no duplicates, in both modes", async () => {
    const remote = mode("remote");
    const s = uniqueId("since");
    await ok(remote.as("orchestrator"), "create-session", s, "simple", "Since");
    await ok(remote.as("orchestrator"), "save-success-criteria", s, '["A","B"]');
    for (const key of ["a", "b"]) {
      await ok(remote.as("orchestrator"), "create-task-group", key, s, `Task ${key}`);
      await ok(remote.as("developer_1"), "claim", s, key);
    }
    const stored = rows<{ id: number; type: string }>(E2E_DB, "SELECT id, type FROM events WHERE session_id = ? ORDER BY id", s);
    expect(stored.map((e) => e.type)).toEqual([
      "session.created",
      "criteria.saved",
      "criteria.saved",
      "task.created",
      "task.claimed",
      "task.created",
      "task.claimed",
    ]);
    const all = jsonLines<EventLine>((await ok(remote.as("viewer"), "events", "--session", s)).stdout);
    expect(all.map((e) => [e.id, e.type])).toEqual(stored.map((e) => [e.id, e.type]));
    const after = stored[3]!.id;
    const expected = stored.filter((e) => e.id > after).map((e) => e.id);
    for (const as of [remote.as("viewer"), ["--db", E2E_DB]]) {
      const since = jsonLines<EventLine>((await ok(as, "events", "--session", s, "--since", String(after))).stdout);
      expect(since.map((e) => e.id)).toEqual(expected);
      expect(since).toEqual(all.filter((e) => e.id > after));
    }
    // The whole ledger, unfiltered, over more than one page of 1,000: every id once, in order.
    const from = rows<{ id: number }>(E2E_DB, "SELECT id FROM events ORDER BY id LIMIT 1 OFFSET 10")[0]!.id;
    const ledger = jsonLines<EventLine>((await ok(remote.as("viewer"), "events", "--since", String(from))).stdout).map((e) => e.id);
    const ledgerStored = rows<{ id: number }>(E2E_DB, "SELECT id FROM events WHERE id > ? ORDER BY id", from).map((e) => e.id);
    expect(ledgerStored.length).toBeGreaterThan(1_000);
    expect(ledger).toEqual(ledgerStored);
  });
});
