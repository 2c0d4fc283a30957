/**
 * The commands' contract with scripts, on a SQLite file and on a PostgreSQL database alike: bad
 * arguments exit 2 naming the argument (and open no database), unknown ids exit 3, `events`
 * streams JSON lines, operators manage users and tokens. Every command documents itself with an
 * example (once: no ledger involved). `query` has its own file (query.engines.test.ts).
 */
// flake-risks wait: absence check: nothing is printed before anything is written; a slow machine could only miss a stray line, never fail
import fs from "node:fs";
import { Command } from "commander";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { closeLedger, openLedger } from "@/db/client";
import { createCaller } from "@/server/api/root";
import { operatorActor } from "@/server/domain/actors";
import { createOutput } from "../output";
import { commandName } from "../index";
import { COMMAND_GROUPS, registerCommands } from "./index";
import {
  type CliResult,
  type Ledger,
  cli,
  closeReaders,
  ledgerCount,
  ledgerRows,
  ledgerUntouched,
  ledgerWorkspace,
  removeWorkspaces,
  start,
  until,
} from "@/test/support/cli-harness";
import { type Engine, describeSharedPath } from "@/test/support/engines";
import { columnsHolding } from "@/test/support/rows";

vi.setConfig({ testTimeout: 60_000 });
afterEach(closeReaders);
afterAll(removeWorkspaces);

async function ok(db: Ledger, ...args: string[]): Promise<CliResult> {
  const run = await cli([...args, ...db.flag]);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

/** A ledger with session `s` (observe), task group `A` and criterion `Tests pass`. */
async function seeded(engine: Engine): Promise<Ledger> {
  const db = await ledgerWorkspace(engine);
  await ok(db, "create-session", "s", "parallel", "req", "--enforcement", "observe");
  await ok(db, "create-task-group", "A", "s", "Group A");
  await ok(db, "save-success-criteria", "s", '["Tests pass"]');
  return db;
}

describeSharedPath("the commands", (engine) => {
  describe("bad arguments", () => {
    // None of these opens the ledger: one, never written, serves them all.
    let untouched: Ledger;
    beforeAll(async () => {
      untouched = await ledgerWorkspace(engine);
    });

    it.each([
      [["create-session", "bad id!", "simple", "req"], "argument 'id'"],
      [["create-session", "s", "simple", "req", "--enforcement", "maybe"], "--enforcement"],
      [["create-session", "s", "simple", "req", "--metadata", "[1]"], "--metadata"],
      [["list-sessions", "ten"], "argument 'limit'"],
      [["update-session-status", "s", "done"], "argument 'status'"],
      [["log-interaction", "s", "developer", "hi", "third"], "argument 'iteration'"],
      [["log-tokens", "s", "developer", "lots"], "argument 'tokens'"],
      [["token-summary", "s", "by_color"], "argument 'by'"],
      [["save-state", "s", "dev", "{}"], "argument 'type'"],
      [["save-state", "s", "pm", "{not json"], "argument 'json'"],
      [["create-task-group", "A", "s", "Group A", "done"], "argument 'status'"],
      [["create-task-group", "A", "s", "Group A", "pending", "dev_1", "--complexity", "11"], "--complexity"],
      [["update-task-group", "A", "s"], "at least one field"],
      [["update-task-group", "A", "s", "--merge_status", "rebasing"], "--merge_status"],
      [["update-task-group", "A", "s", "--specializations", '{"a":1}'], "--specializations"],
      [["update-task-group", "A", "s", "--revision-count", "-1"], "--revision-count"],
      [["save-success-criteria", "s", "All tests passing"], "argument 'criteria_json'"],
      [["save-success-criteria", "s", '[{"criterion":""}]'], "criteria_json[0].criterion"],
      [["save-success-criteria", "s", '[{"criterion":"x","status":"done","owner":"pm"}]'], "criteria_json[0].status"],
      [["update-success-criterion", "s", "Tests pass"], "--status"],
      [["update-success-criterion", "s", "Tests pass", "--status", "done"], "--status"],
      [["save-reasoning", "s", "A", "developer", "thinking", "text"], "argument 'phase'"],
      [["save-reasoning", "s", "A", "developer", "understanding"], "content"],
      [["save-reasoning", "s", "A", "developer", "understanding", "--content-file", "/nonexistent/r.md"], "--content-file"],
      [["save-reasoning", "s", "A", "developer", "understanding", "text", "--confidence", "sure"], "--confidence"],
      [["save-event", "s", "pm_bazinga", "{oops"], "argument 'payload_json'"],
      [["get-events", "s", "pm_bazinga", "0"], "argument 'limit'"],
      [["claim", "s", "A", "--evidence", "[1,2]"], "--evidence"],
      [["verify", "s", "A"], "--check"],
      [["verify", "s", "A", "--check", "tests"], "--check"],
      [["verify", "s", "A", "--proofpack", '{"verdict":"MAYBE","checks":[]}'], "--proofpack.verdict"],
      [["block", "s", "A"], "--failures"],
      [["request-reset", "s", "A"], "--reason"],
      [["save-context-package", "s", "A", "gossip", "f.md", "pm", '["developer"]', "high", "x"], "argument 'type'"],
      [["save-context-package", "s", "A", "research", "f.md", "pm", "developer", "high", "x"], "argument 'consumers_json'"],
      [["mark-context-consumed", "first", "developer"], "argument 'package_id'"],
      [["save-development-plan", "s", "p", "t", "[]", "1", "1"], "phases_json"],
      [["update-plan-progress", "s", "1", "done"], "argument 'status'"],
      [["query", "DELETE FROM tasks"], "sql"],
      [["events", "--since", "latest"], "--since"],
      [["user", "create", "--email", "x@example.com", "--password", "short", "--role", "lead"], "--password"],
      [["token", "create", "--name", "bot", "--role", "robot"], "--role"],
      [["token", "revoke", "three"], "argument 'id'"],
    ])("%j exits 2 naming %s, and creates or writes no database", async (args, name) => {
      const run = await cli([...args, ...untouched.flag]);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
      expect(run.stderr).toContain(name);
      expect(await ledgerUntouched(untouched)).toBe(true);
    });

    it("exits 2 for a bad PROOFGATE_ENFORCEMENT, naming it, and writes nothing", async () => {
      const run = await cli(["create-session", "s", "simple", "req", ...untouched.flag], { env: { PROOFGATE_ENFORCEMENT: "strict" } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("PROOFGATE_ENFORCEMENT");
      expect(await ledgerUntouched(untouched)).toBe(true);
    });

    it("reports a bad argument as JSON on stderr with --json", async () => {
      const run = await cli(["--json", "save-reasoning", "s", "A", "developer", "understanding", ...untouched.flag]);
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stderr)).toEqual({ error: { message: expect.stringContaining("content: required") } });
    });

    it("refuses a refusal-worthy value the API checks (an over-long label) with exit 2, not an internal error", async () => {
      const db = await seeded(engine);
      const run = await cli(["log-interaction", "s", "x".repeat(201), "hello", ...db.flag]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("agent:");
    });
  });

  describe("unknown ids", () => {
    // Each is refused before it writes: one seeded ledger serves them all, and must not change.
    let db: Ledger;
    let events: number;
    beforeAll(async () => {
      db = await seeded(engine);
      events = await ledgerCount(db, "SELECT * FROM events");
    });

    it.each([
      [["get-session", "nope"]],
      [["update-session-status", "nope", "failed"]],
      [["get-task-groups", "nope"]],
      [["update-task-group", "A", "nope", "--status", "in_progress"]],
      [["create-task-group", "A", "nope", "Group A"]],
      [["get-success-criteria", "nope"]],
      [["save-state", "nope", "pm", "{}"]],
      [["stream-logs", "nope"]],
      [["check-completion", "nope"]],
      [["dashboard-snapshot", "nope"]],
      [["claim", "s", "nope"]],
      [["update-success-criterion", "s", "No such criterion", "--status", "met"]],
      [["update-task-group", "Z", "s", "--status", "in_progress"]],
      [["mark-context-consumed", "99", "developer"]],
      [["update-plan-progress", "s", "1", "completed"]],
      [["token", "revoke", "42"]],
    ])("%j exits 3 and writes nothing", async (args) => {
      const run = await cli([...args, ...db.flag]);
      expect(run.code).toBe(3);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^proofgate: .*does not exist/);
      expect(await ledgerCount(db, "SELECT * FROM events")).toBe(events);
    });
  });

  describe("events", () => {
    it("prints one JSON object per line, after --since, for one session", async () => {
      const db = await seeded(engine);
      await ok(db, "create-session", "other", "simple", "req");
      const all = (await ok(db, "events", "--session", "s")).stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { id: number; type: string; sessionId: string });
      expect(all.map((e) => e.type)).toEqual(["session.created", "task.created", "criteria.saved"]);
      expect(all.every((e) => e.sessionId === "s")).toBe(true);
      const after = (await ok(db, "events", "--session", "s", "--since", String(all[0]!.id))).stdout.trim().split("\n");
      expect(after).toHaveLength(2);
    });

    it("--follow prints events other connections write, and exits 0 on SIGINT", async () => {
      const db = await seeded(engine);
      // --since the current last event: without it --follow starts from whenever the process is up.
      const [{ last }] = (await ledgerRows<{ last: number }>(db, "SELECT max(id) AS last FROM events")) as [{ last: number }];
      const running = start(["events", "--follow", "--session", "s", "--since", String(last), ...db.flag]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(running.stdout()).toBe("");
      const writer = await openLedger(db.target, { migrate: false, poolSize: 1 });
      const caller = createCaller({ db: writer, actor: operatorActor("developer_1"), via: "internal", sameOrigin: true });
      await caller.log.interaction({ sessionId: "s", agentType: "developer", content: "written elsewhere" });
      await caller.session.create({ id: "other" });
      await caller.log.interaction({ sessionId: "other", agentType: "pm", content: "another session: not shown" });
      await caller.log.interaction({ sessionId: "s", agentType: "qa_expert", content: "and again" });
      await closeLedger(writer);
      await until(() => running.stdout().split("\n").filter(Boolean).length === 2);
      running.interrupt();
      const result = await running.done;
      expect(result.code).toBe(0);
      const lines = result.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; actor: string; data: { agentType: string } });
      expect(lines.map((l) => [l.type, l.actor, l.data.agentType])).toEqual([
        ["logs.appended", "developer_1", "developer"],
        ["logs.appended", "developer_1", "qa_expert"],
      ]);
    });
  });

  describe("operators", () => {
    it("create a user, and create, list and revoke tokens; a token is shown once and never stored in clear", async () => {
      const db = await ledgerWorkspace(engine);
      const user = await ok(db, "user", "create", "--email", "Lead@Example.com", "--password", "correct horse battery", "--role", "lead");
      expect(user.stdout).toBe("✓ Created lead lead@example.com\n");
      const created = JSON.parse((await ok(db, "--json", "token", "create", "--name", "developer-bot", "--role", "agent")).stdout) as {
        token: string;
        id: number;
      };
      expect(created.token).toMatch(/^pg_/);
      const text = await ok(db, "--quiet", "token", "create", "--name", "verifier-bot", "--role", "verifier");
      expect(text.stdout).toMatch(/^pg_\S+\n\(token #2 "verifier-bot", role verifier: shown once/);
      const listed = (await ok(db, "token", "list")).stdout;
      expect(listed).toContain("developer-bot  agent");
      expect(listed).not.toContain(created.token);
      expect((await ok(db, "token", "revoke", String(created.id))).stdout).toBe(`✓ Revoked token #${created.id}\n`);
      expect((await cli(["token", "revoke", String(created.id), ...db.flag])).code).toBe(3);
      expect(await ledgerRows(db, "SELECT name, CAST(revoked_at IS NOT NULL AS integer) AS revoked FROM api_tokens ORDER BY id")).toEqual([
        { name: "developer-bot", revoked: 1 },
        { name: "verifier-bot", revoked: 0 },
      ]);
      if (engine === "sqlite") {
        const file = db.target;
        const dump = fs.readFileSync(file).toString("latin1") + (fs.existsSync(`${file}-wal`) ? fs.readFileSync(`${file}-wal`).toString("latin1") : "");
        expect(dump).not.toContain(created.token);
      }
      const reader = await openLedger(db.target, { migrate: false, poolSize: 1 });
      try {
        expect(await columnsHolding(reader, created.token)).toEqual([]);
        expect(await columnsHolding(reader, created.token.slice(3))).toEqual([]);
      } finally {
        await closeLedger(reader);
      }
      expect(JSON.parse((await ok(db, "user", "list")).stdout)).toMatchObject([{ email: "lead@example.com", role: "lead" }]);
    });
  });

  describe("output", () => {
    it("--quiet drops a write's confirmation but not a read's result", async () => {
      const db = await seeded(engine);
      expect((await ok(db, "--quiet", "log-tokens", "s", "developer", "100")).stdout).toBe("");
      expect((await ok(db, "log-tokens", "s", "developer", "50", "developer_1", "--quiet")).stdout).toBe("");
      expect(JSON.parse((await ok(db, "--quiet", "token-summary", "s", "agent_id")).stdout)).toEqual({ unknown: 100, developer_1: 50, total: 150 });
    });

    it("accepts both spellings of BAZINGA's flags", async () => {
      const db = await seeded(engine);
      await ok(
        db,
        "update-task-group",
        "A",
        "s",
        "--assigned-to",
        "developer_2",
        "--revision-count",
        "2",
        "--last-review-status",
        "CHANGES_REQUESTED",
        "--component_path",
        "backend/auth/",
        "--security_sensitive",
        "true",
      );
      await ok(db, "save-state", "s", "group_status", '{"n":1}', "--group_id", "A");
      await ok(db, "save-reasoning", "s", "A", "developer", "understanding", "u", "--agent-id", "developer_9", "--agent-id", "developer_9");
      await ok(db, "save-reasoning", "s", "A", "developer", "completion", "c", "--agent-id", "developer_9");
      expect(
        await ledgerRows(
          db,
          "SELECT assignee, revision_count, last_review_status, component_path, CAST(security_sensitive AS integer) AS security_sensitive FROM tasks",
        ),
      ).toEqual([
        { assignee: "developer_2", revision_count: 2, last_review_status: "CHANGES_REQUESTED", component_path: "backend/auth/", security_sensitive: 1 },
      ]);
      expect(JSON.parse((await ok(db, "get-state", "s", "group_status", "--group-id", "A")).stdout)).toEqual({ n: 1 });
      expect(JSON.parse((await ok(db, "get-reasoning", "s", "--group-id", "A", "--agent-type", "developer")).stdout)).toHaveLength(2);
      expect((await ok(db, "check-mandatory-phases", "s", "A", "developer")).stdout).toContain('"complete": true');
    });

    it("check-mandatory-phases prints what is missing and exits 1", async () => {
      const db = await seeded(engine);
      await ok(db, "save-reasoning", "s", "A", "developer", "understanding", "u");
      const run = await cli(["check-mandatory-phases", "s", "A", "developer", ...db.flag]);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({ complete: false, missing: ["completion"], documented: ["understanding"] });
      expect(run.stderr).toContain("has not documented completion reasoning for A");
    });

    it("stream-logs walks the pages for [limit] [offset] and prints BAZINGA's markdown, oldest first", async () => {
      const db = await seeded(engine);
      for (let i = 1; i <= 7; i += 1) await ok(db, "--quiet", "log-interaction", "s", "developer", `step ${i}`, String(i));
      const window = await ok(db, "stream-logs", "s", "3", "2");
      expect(window.stdout).toMatch(/^## \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] Iteration 3 - DEVELOPER\n\nstep 3\n\n---\n/);
      expect(window.stdout.match(/^## /gm)).toHaveLength(3);
      expect(window.stdout).toContain("step 5");
      expect(window.stdout).not.toContain("step 6");
      expect(JSON.parse((await ok(db, "--json", "stream-logs", "s", "2")).stdout).map((l: { content: string }) => l.content)).toEqual(["step 6", "step 7"]);
      expect((await ok(db, "stream-logs", "s", "5", "100")).stdout).toBe("No logs found.\n");
    });

    it("counts skill output iterations, keeps plans and routes context packages", async () => {
      const db = await seeded(engine);
      await ok(db, "save-skill-output", "s", "security_scan", '{"findings":2}', "--agent", "developer");
      const second = await ok(db, "save-skill-output", "s", "security_scan", '{"findings":0}', "--agent", "developer");
      expect(second.stdout).toBe("✓ Saved security_scan output (iteration 2)\n");
      expect(JSON.parse((await ok(db, "get-skill-output", "s", "security_scan")).stdout)).toEqual({ findings: 0 });
      expect(JSON.parse((await ok(db, "get-skill-output", "s", "coverage")).stdout)).toBeNull();
      await ok(db, "save-development-plan", "s", "prompt", "plan", '[{"phase":1,"name":"JWT"},{"phase":2,"name":"OAuth"}]', "1", "2", '{"source":"pm"}');
      await ok(db, "update-plan-progress", "s", "2", "in_progress");
      expect(JSON.parse((await ok(db, "get-development-plan", "s")).stdout)).toMatchObject({
        current_phase: 2,
        total_phases: 2,
        phases: [
          { phase: 1, status: "pending" },
          { phase: 2, status: "in_progress" },
        ],
        metadata: { source: "pm" },
      });
      const saved = JSON.parse(
        (await ok(db, "--json", "save-context-package", "s", "A", "failures", "ctx/f.md", "qa_expert", '["developer"]', "critical", "Two failing tests"))
          .stdout,
      ) as { id: number };
      expect(JSON.parse((await ok(db, "get-context-packages", "s", "A", "developer")).stdout)).toMatchObject([
        { id: saved.id, priority: "critical", pending: true },
      ]);
      await ok(db, "mark-context-consumed", String(saved.id), "developer");
      expect(JSON.parse((await ok(db, "get-context-packages", "s", "A", "developer")).stdout)).toEqual([]);
      expect(await ledgerCount(db, "SELECT * FROM events WHERE type LIKE 'context_package.%'")).toBe(2);
    });

    it("saves an investigation iteration's state and event; a retry stores no second event", async () => {
      const db = await seeded(engine);
      const { dir } = db;
      fs.writeFileSync(`${dir}/state.json`, '{"hypotheses":["race in token refresh"],"iteration":2}');
      fs.writeFileSync(`${dir}/event.json`, '{"finding":"refresh not awaited"}');
      const args = [
        "save-investigation-iteration",
        "s",
        "A",
        "2",
        "root_cause_found",
        "--state-file",
        `${dir}/state.json`,
        "--event_file",
        `${dir}/event.json`,
      ];
      expect((await ok(db, ...args)).stdout).toBe("✓ Saved investigation iteration 2 of A: root_cause_found\n");
      expect((await ok(db, ...args)).stdout).toContain("(event already saved)");
      expect(JSON.parse((await ok(db, "get-state", "s", "investigation", "--group-id", "A")).stdout)).toEqual({
        hypotheses: ["race in token refresh"],
        iteration: 2,
      });
      expect(JSON.parse((await ok(db, "get-events", "s", "investigation_iteration")).stdout)).toMatchObject([
        { group_id: "A", iteration: 2, event_payload: { finding: "refresh not awaited" }, content: "Investigation iteration 2: root_cause_found" },
      ]);
    });

    it("reads BAZINGA's criteria as its PM writes them: snake_case, 0/1 flags, nulls for defaults", async () => {
      const db = await seeded(engine);
      await ok(
        db,
        "save-success-criteria",
        "s",
        '[{"criterion":"Lint clean","status":null,"actual":null,"evidence":null,"required_for_completion":0},{"criterion":"Docs","required_for_completion":"true"}]',
      );
      expect(await ledgerRows(db, "SELECT criterion, status, CAST(required_for_completion AS integer) AS required FROM success_criteria ORDER BY id")).toEqual([
        { criterion: "Tests pass", status: "pending", required: 1 },
        { criterion: "Lint clean", status: "pending", required: 0 },
        { criterion: "Docs", status: "pending", required: 1 },
      ]);
      const bad = await cli(["save-success-criteria", "s", '[{"criterion":"x","required_for_completion":"maybe"}]', ...db.flag]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("required_for_completion must be true or false");
    });

    // DESIGN.md: every mutation writes one row to events, so the live dashboard hears of detail changes too.
    it("update-task-group without a status change still appends its event", async () => {
      const db = await seeded(engine);
      const before = await ledgerCount(db, "SELECT * FROM events");
      await ok(db, "update-task-group", "A", "s", "--qa_attempts", "2");
      expect(await ledgerRows(db, "SELECT qa_attempts FROM tasks")).toEqual([{ qa_attempts: 2 }]);
      expect(await ledgerCount(db, "SELECT * FROM events")).toBe(before + 1);
    });

    it("records a verifier's finding beside the claim, which the gate trusts", async () => {
      const db = await seeded(engine);
      await ok(db, "update-success-criterion", "s", "Tests pass", "--status", "met", "--evidence", "ci/run/1");
      await ok(db, "verify-success-criterion", "s", "Tests pass", "--status", "failed", "--actual", "3 failing", "--agent-id", "validator_1");
      const gate = await cli(["check-completion", "s", ...db.flag]);
      expect(gate.code).toBe(1);
      expect(gate.stdout).toContain("claimed met but the verifier found failed");
    });
  });

  describe("decline-reset", () => {
    it("closes a pending reset request with the reason; the task stays blocked; without --reason it is a usage error", async () => {
      const db = await seeded(engine);
      await ok(db, "claim", "s", "A", "--agent-id", "developer_1");
      await ok(db, "block", "s", "A", "--failures", '["3 tests failing"]', "--agent-id", "verifier_1");
      const none = await cli(["decline-reset", "s", "A", "--reason", "no", ...db.flag]);
      expect(none.code).not.toBe(0);
      expect(none.stderr).toContain("no pending reset request to decline");
      await ok(db, "request-reset", "s", "A", "--reason", "fixed the fixtures", "--agent-id", "orchestrator");
      const missing = await cli(["decline-reset", "s", "A", ...db.flag]);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain("--reason");

      const out = await ok(db, "decline-reset", "s", "A", "--reason", "same failures on main", "--agent-id", "lead@example.com");
      expect(out.stdout).toContain("✓ decline-reset: task A is blocked");
      const task = JSON.parse((await ok(db, "get-task", "s", "A", "--json")).stdout) as {
        status: string;
        resetRequested: boolean;
        transitions: Record<string, unknown>[];
      };
      expect(task).toMatchObject({ status: "blocked", resetRequested: false });
      expect(task.transitions.at(-1)).toMatchObject({
        move: "decline_reset",
        fromStatus: "blocked",
        toStatus: "blocked",
        actor: "lead@example.com",
        reason: "same failures on main",
      });
    });
  });

  describe("get-task", () => {
    it("shows every transition; after block → approve-reset the earlier claim and block are still listed", async () => {
      const db = await seeded(engine);
      await ok(db, "claim", "s", "A", "--evidence", "out/tests.txt", "--agent-id", "developer_1");
      await ok(db, "block", "s", "A", "--failures", '["3 tests failing"]', "--check", "unit=fail", "--agent-id", "verifier_1");
      await ok(db, "request-reset", "s", "A", "--reason", "fixed the fixtures", "--agent-id", "orchestrator");
      await ok(db, "approve-reset", "s", "A", "--reason", "retry", "--agent-id", "lead@example.com");

      const task = JSON.parse((await ok(db, "get-task", "s", "A", "--json")).stdout) as {
        status: string;
        resetCount: number;
        claimedBy: string | null;
        transitions: Record<string, unknown>[];
      };
      expect(task).toMatchObject({ status: "pending", resetCount: 1, claimedBy: null });
      expect(task.transitions.map((t) => [t.move, t.fromStatus, t.toStatus, t.actor, t.reason])).toEqual([
        ["create", null, "pending", "operator", null],
        ["claim", "pending", "claimed", "developer_1", null],
        ["block", "claimed", "blocked", "verifier_1", null],
        ["request_reset", "blocked", "blocked", "orchestrator", "fixed the fixtures"],
        ["approve_reset", "blocked", "pending", "lead@example.com", "retry"],
      ]);
      expect(task.transitions[1]).toMatchObject({ evidence: ["out/tests.txt"], role: "admin", at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      expect(task.transitions[2]).toMatchObject({
        claimant: "developer_1",
        failures: ["3 tests failing"],
        proofpack: { verdict: "BLOCKED", checks: [{ name: "unit", passed: false }] },
      });

      const text = (await ok(db, "get-task", "s", "A")).stdout;
      expect(text).toMatch(/^Task A in s: Group A\n {2}status: pending \(version 5, reset 1×\)\n/);
      const listed = text.split("\n").filter((line) => /^ +\d+\. /.test(line));
      expect(listed.map((line) => line.replace(/^ +(\d+)\. \S+ +/, "$1 ").replace(/ +/g, " "))).toEqual([
        "1 — → pending create by operator (admin)",
        "2 pending → claimed claim by developer_1 (admin)",
        "3 claimed → blocked block by verifier_1 (admin)",
        "4 blocked → blocked request_reset by orchestrator (admin)",
        "5 blocked → pending approve_reset by lead@example.com (admin)",
      ]);
      expect(text).toContain("        evidence: out/tests.txt\n");
      expect(text).toContain("        failures: 3 tests failing\n        proofpack: BLOCKED: unit fail\n");
      expect(text).toContain("        reason: retry");
    });

    it("exits 3 for an unknown task and 2 for a bad session id", async () => {
      const db = await seeded(engine);
      const missing = await cli(["get-task", "s", "Z", ...db.flag]);
      expect(missing).toMatchObject({ code: 3, stdout: "", stderr: 'proofgate: task "s/Z" does not exist\n' });
      expect((await cli(["get-task", "bad id!", "A", ...db.flag])).code).toBe(2);
    });
  });
});

const program = new Command("proofgate");
await registerCommands(
  program,
  createOutput(() => ({})),
);

describe("command groups", () => {
  it("list exactly the commands each group registers, each command in one group", async () => {
    const seen = new Set<string>();
    for (const group of COMMAND_GROUPS) {
      const alone = new Command("proofgate");
      (await group.load())(
        alone,
        createOutput(() => ({})),
      );
      expect(alone.commands.map((c) => c.name())).toEqual(group.commands);
      for (const name of group.commands) {
        expect(seen.has(name), name).toBe(false);
        seen.add(name);
      }
    }
    expect([...seen].sort()).toEqual(program.commands.map((c) => c.name()).sort());
  });

  it("registers only the group of the command a call names, and every group otherwise", async () => {
    const only = new Command("proofgate");
    await registerCommands(
      only,
      createOutput(() => ({})),
      "claim",
    );
    expect(only.commands.map((c) => c.name())).toEqual(["start", "claim", "verify", "block", "complete", "request-reset", "approve-reset", "decline-reset"]);
    const unknown = new Command("proofgate");
    await registerCommands(
      unknown,
      createOutput(() => ({})),
      "no-such-command",
    );
    expect(unknown.commands).toHaveLength(program.commands.length);
  });

  it("finds the command's name in argv past the global options", () => {
    const argv = (...args: string[]) => ["node", "proofgate", ...args];
    expect(commandName(argv("--db", "x.db", "--agent-id", "qa_1", "--json", "verify", "s", "t", "--check", "a=pass"))).toBe("verify");
    expect(commandName(argv("--url", "http://h", "--token", "pg_x", "--quiet", "events", "--follow"))).toBe("events");
    expect(commandName(argv("--db=x.db", "claim", "s", "t"))).toBe("claim");
    expect(commandName(argv("--json"))).toBeUndefined();
    expect(commandName(argv("--", "claim"))).toBeUndefined();
  });

  it("runs a command of one group and still says what is unknown", async () => {
    const db = await seeded("sqlite");
    expect((await cli(["get-task", "s", "A", ...db.flag, "--json"])).code).toBe(0);
    const typo = await cli([...db.flag, "get-taks", "s", "A"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'get-taks'");
    expect(typo.stderr).toContain("get-task");
  });
});

describe("help", () => {
  const names = program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands.map((sub) => [c.name(), sub.name()]) : [[c.name()]]));

  it("covers the BAZINGA-compatible command list", () => {
    const top = program.commands.map((c) => c.name());
    for (const name of [
      "create-session",
      "get-session",
      "list-sessions",
      "update-session-status",
      "log-interaction",
      "stream-logs",
      "log-tokens",
      "token-summary",
      "save-state",
      "get-state",
      "create-task-group",
      "update-task-group",
      "get-task-groups",
      "save-success-criteria",
      "get-success-criteria",
      "update-success-criterion",
      "save-reasoning",
      "get-reasoning",
      "reasoning-timeline",
      "check-mandatory-phases",
      "save-event",
      "get-events",
      "save-skill-output",
      "get-skill-output",
      "save-development-plan",
      "update-plan-progress",
      "save-context-package",
      "get-context-packages",
      "mark-context-consumed",
      "save-investigation-iteration",
      "dashboard-snapshot",
      "query",
      "start",
      "claim",
      "verify",
      "block",
      "complete",
      "request-reset",
      "approve-reset",
      "decline-reset",
      "check-completion",
      "events",
      "user",
      "token",
    ]) {
      expect(top).toContain(name);
    }
  });

  it.each(names.map((name) => [name]))("%j --help documents the command with an example", async (name: string[]) => {
    const run = await cli([...name, "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: proofgate ${name.join(" ")} `));
    expect(run.stdout).toMatch(/^Examples?:\n {2}(PROOFGATE_\w+=\w+ )?proofgate /m);
  });
});
