import { describe, expect, it } from "vitest";
import { type Db } from "@/db/client";
import { operatorActor } from "@/server/domain/actors";
import { RoleForbiddenError, ValidationError } from "@/server/domain/errors";
import { MAX_SUMMARY_CHARS } from "@/server/domain/tool-call-summary";
import type { ServiceContext } from "../context";
import { saveCriteria } from "../criteria/save";
import { updateCriterion } from "../criteria/update";
import { createSession } from "../session/create";
import { updateSessionStatus } from "../session/update-status";
import { createGoal } from "../goal/create";
import { startAttempt } from "../attempt/start";
import { finishAttempt } from "../attempt/finish";
import { handleClaudeCodeHook } from "./hook";
import { claudeCodeOutput } from "./claude-code-output";
import { LEAKED, RUNTIME_ID, postToolUse, postToolUseFailure, secretBash, sessionStart, stop, subagentStop } from "./test-payloads";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { countOf, eventTypesOf, rowsLikeSqlite, tableCountsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

const ctxOf = (db: Db, extra: Partial<ServiceContext> = {}): ServiceContext => ({ db, actor: operatorActor("claude"), ...extra });
const inRuntime = (db: Db, id = RUNTIME_ID) => ctxOf(db, { actor: operatorActor("orchestrator"), runtimeSession: { runtime: "claude-code", externalId: id } });

/** A BAZINGA-style session created by a command run inside the runtime session, with one pending required criterion. */
async function linkedSession(db: Db, id = "bazinga_20250112_143022") {
  await createSession(inRuntime(db), { id, mode: "simple", requirements: "Add JWT authentication" });
  await saveCriteria(ctxOf(db), { sessionId: id, criteria: [{ criterion: "All tests passing" }] });
  return id;
}

describeEngines("the Claude Code hook", (engine) => {
  describe("SessionStart", () => {
    it.each(["startup", "resume", "clear", "compact"] as const)(
      "records the runtime session (source %s) and exports its id for later commands",
      async (source) => {
        const db = await freshLedger(engine);
        const answer = await handleClaudeCodeHook(ctxOf(db), sessionStart(source));
        expect(answer).toEqual({ decision: "allow", exportEnv: { PROOFGATE_RUNTIME_SESSION: RUNTIME_ID } });
        expect(claudeCodeOutput(answer)).toBeNull();
        expect(await rowsLikeSqlite(db, "select runtime, external_id, cwd, source from runtime_sessions")).toEqual([
          { runtime: "claude-code", external_id: RUNTIME_ID, cwd: "/home/dev/app", source },
        ]);
        expect(await eventTypesOf(db)).toEqual(["runtime.session_started"]);
      },
    );

    it("keeps one row per runtime session across resume, clear and compact, with the latest source", async () => {
      const db = await freshLedger(engine);
      for (const source of ["startup", "resume", "compact"] as const) await handleClaudeCodeHook(ctxOf(db), sessionStart(source));
      expect(await rowsLikeSqlite(db, "select source from runtime_sessions")).toEqual([{ source: "compact" }]);
      expect(await eventTypesOf(db)).toEqual(["runtime.session_started", "runtime.session_started", "runtime.session_started"]);
    });
  });

  describe("linking ledger sessions created inside a runtime session", () => {
    it("links a session created with the runtime session on the context, in the same transaction as its session.created event", async () => {
      const db = await freshLedger(engine);
      await handleClaudeCodeHook(ctxOf(db), sessionStart());
      await linkedSession(db);
      expect(
        await rowsLikeSqlite(db, "select l.session_id, r.external_id from runtime_session_links l join runtime_sessions r on r.id = l.runtime_session_id"),
      ).toEqual([{ session_id: "bazinga_20250112_143022", external_id: RUNTIME_ID }]);
      const created = (await rowsLikeSqlite<{ data: string }>(db, "select data from events where type = 'session.created'"))[0]!;
      expect(JSON.parse(created.data)).toMatchObject({ runtime: { runtime: "claude-code", runtimeSessionId: RUNTIME_ID } });
    });

    it("creates the runtime session when its SessionStart was never reported, and links nothing without one", async () => {
      const db = await freshLedger(engine);
      await linkedSession(db, "s_linked");
      await createSession(ctxOf(db), { id: "s_plain" });
      expect(await rowsLikeSqlite(db, "select session_id from runtime_session_links")).toEqual([{ session_id: "s_linked" }]);
      expect(await rowsLikeSqlite(db, "select source from runtime_sessions")).toEqual([{ source: "command" }]);
    });
  });

  describe("PostToolUse and PostToolUseFailure", () => {
    it("writes nothing for a runtime session no ledger session is linked to", async () => {
      const db = await freshLedger(engine);
      await handleClaudeCodeHook(ctxOf(db), sessionStart());
      const before = await tableCountsOf(db);
      expect(await handleClaudeCodeHook(ctxOf(db), secretBash())).toEqual({ decision: "allow" });
      expect(await handleClaudeCodeHook(ctxOf(db), postToolUse("Read", { file_path: "/x" }, {}, "never-started"))).toEqual({ decision: "allow" });
      expect(await tableCountsOf(db)).toEqual(before);
    });

    it("records Bash, Edit, Write and Read calls in the linked session's logs, redacted and capped", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      const big = "y".repeat(100_000);
      await handleClaudeCodeHook(ctxOf(db), secretBash());
      await handleClaudeCodeHook(
        ctxOf(db),
        postToolUse(
          "Edit",
          { file_path: "/home/dev/app/src/auth.ts", old_string: "a", new_string: `password = "hunter2-very-secret"\n${big}` },
          { filePath: "/home/dev/app/src/auth.ts", success: true },
        ),
      );
      await handleClaudeCodeHook(
        ctxOf(db),
        postToolUse(
          "Write",
          { file_path: "/home/dev/app/.env", content: `DB_PASSWORD=hunter2-very-secret\n${big}` },
          { type: "create", filePath: "/home/dev/app/.env" },
        ),
      );
      await handleClaudeCodeHook(ctxOf(db), postToolUse("Read", { file_path: "/home/dev/app/README.md" }, { type: "text", file: { content: big } }));
      const logs = await rowsLikeSqlite<{
        content: string;
        event_subtype: string;
        event_payload: string;
        redacted: number;
        agent_type: string;
        log_type: string;
      }>(db, "select content, event_subtype, event_payload, redacted, agent_type, log_type from orchestration_logs where session_id = ? order by id", id);
      expect(logs.map((l) => l.content)).toEqual([
        "Bash: curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://api.example.com && export OPENAI_API_KEY=[REDACTED:openai_key]",
        "Edit: /home/dev/app/src/auth.ts",
        "Write: /home/dev/app/.env",
        "Read: /home/dev/app/README.md",
      ]);
      expect(logs.map((l) => [l.log_type, l.event_subtype, l.agent_type, l.redacted])).toEqual([
        ["event", "tool_call", "claude-code", 1],
        ["event", "tool_call", "claude-code", 1],
        ["event", "tool_call", "claude-code", 1],
        ["event", "tool_call", "claude-code", 0],
      ]);
      for (const log of logs) {
        const payload = JSON.parse(log.event_payload) as { input: string; outcome: string; tool: string; runtimeSessionId: string };
        expect(payload.runtimeSessionId).toBe(RUNTIME_ID);
        expect(payload.input.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
        expect(payload.outcome.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
      }
      expect(JSON.parse(logs[0]!.event_payload).outcome).toContain("[REDACTED:github_token]");
      expect(JSON.parse(logs[2]!.event_payload).input).toContain("[REDACTED:password]");
      const everything =
        JSON.stringify(await rowsLikeSqlite(db, "select * from orchestration_logs")) + JSON.stringify(await rowsLikeSqlite(db, "select * from events"));
      for (const secret of LEAKED) expect(everything).not.toContain(secret);
      expect((await eventTypesOf(db, id)).filter((t) => t === "logs.appended")).toHaveLength(4);
    });

    it("records a failed call with its error, and only in sessions still active", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      await linkedSession(db, "s_done");
      await updateSessionStatus(ctxOf(db), { sessionId: "s_done", status: "failed" });
      await handleClaudeCodeHook(ctxOf(db), postToolUseFailure("Bash", { command: "npm test" }, "Command exited with non-zero status code 1"));
      expect(await rowsLikeSqlite(db, "select session_id, content, event_subtype, event_payload from orchestration_logs")).toEqual([
        {
          session_id: id,
          content: "Bash (failed): npm test",
          event_subtype: "tool_call_failed",
          event_payload: expect.stringContaining('"outcome":"failed: Command exited with non-zero status code 1"'),
        },
      ]);
    });

    it("adds the call to the session's open attempt, and not once the attempt finished", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      const goal = await createGoal(ctxOf(db), { sessionId: id, goalText: "JWT login works" });
      const { attempt } = await startAttempt(ctxOf(db), { goalId: goal.id });
      await handleClaudeCodeHook(ctxOf(db), secretBash());
      await handleClaudeCodeHook(ctxOf(db), postToolUse("Read", { file_path: "/a" }, { type: "text" }));
      expect(await rowsLikeSqlite(db, 'select attempt_id, "order", tool_name from tool_calls order by id')).toEqual([
        { attempt_id: attempt.id, order: 1, tool_name: "Bash" },
        { attempt_id: attempt.id, order: 2, tool_name: "Read" },
      ]);
      expect(JSON.stringify(await rowsLikeSqlite(db, "select input, output from tool_calls"))).not.toContain(LEAKED[1]);
      expect((await eventTypesOf(db, id)).filter((t) => t === "attempt.tool_calls_recorded")).toHaveLength(2);
      await finishAttempt(ctxOf(db), { attemptId: attempt.id, status: "completed" });
      await handleClaudeCodeHook(ctxOf(db), postToolUse("Read", { file_path: "/b" }, { type: "text" }));
      expect(await countOf(db, "tool_calls")).toBe(2);
      expect(await countOf(db, "orchestration_logs")).toBe(3);
    });
  });

  describe("Stop and SubagentStop", () => {
    it("lets the stop through, writing nothing, with no linked active session", async () => {
      const db = await freshLedger(engine);
      await handleClaudeCodeHook(ctxOf(db), sessionStart());
      await createSession(ctxOf(db), { id: "unlinked" });
      const before = await tableCountsOf(db);
      expect(await handleClaudeCodeHook(ctxOf(db), stop())).toEqual({ decision: "allow" });
      expect(await handleClaudeCodeHook(ctxOf(db), stop(false, "unknown-runtime"))).toEqual({ decision: "allow" });
      expect(await tableCountsOf(db)).toEqual(before);
    });

    it("holds the stop while the gate rejects, telling the agent each failed check and its fix, and records no completion check", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      const answer = await handleClaudeCodeHook(ctxOf(db), stop());
      expect(answer.decision).toBe("block");
      const output = claudeCodeOutput(answer)!;
      expect(Object.keys(output)).toEqual(["decision", "reason"]);
      expect(output.reason).toContain(`the completion gate rejects ledger session ${id}`);
      expect(output.reason).toContain('- Criterion "All tests passing" is not met: pending');
      expect(output.reason).toContain(`fix: meet it, then: proofgate update-success-criterion ${id} 'All tests passing' --status met`);
      expect(await countOf(db, "completion_checks")).toBe(0);
      const held = await rowsLikeSqlite<{ data: string; session_id: string }>(db, "select data, session_id from events where type = 'runtime.stop_held'");
      expect(held).toHaveLength(1);
      expect(held[0]!.session_id).toBe(id);
      expect(JSON.parse(held[0]!.data)).toMatchObject({
        block: 1,
        maxBlocks: 3,
        event: "Stop",
        reasons: ["Only 0/1 criteria met", 'Criterion "All tests passing" is not met: pending'],
        message: output.reason,
      });
    });

    it("holds at most --max-blocks stops in a row, then lets one through recorded as runtime.stop_unverified", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      expect((await handleClaudeCodeHook(ctxOf(db), stop(false))).decision).toBe("block");
      expect((await handleClaudeCodeHook(ctxOf(db), stop(true))).decision).toBe("block");
      expect((await handleClaudeCodeHook(ctxOf(db), stop(true))).decision).toBe("block");
      const through = await handleClaudeCodeHook(ctxOf(db), stop(true));
      expect(through).toEqual({
        decision: "allow",
        systemMessage: expect.stringContaining(`after 3 held stops in a row, with the completion gate still rejecting ${id}`),
      });
      expect(claudeCodeOutput(through)).toEqual({ systemMessage: through.decision === "allow" ? through.systemMessage : "" });
      expect((await eventTypesOf(db, id)).filter((t) => t.startsWith("runtime."))).toEqual([
        "runtime.stop_held",
        "runtime.stop_held",
        "runtime.stop_held",
        "runtime.stop_unverified",
      ]);
      expect(JSON.parse((await rowsLikeSqlite<{ data: string }>(db, "select data from events where type = 'runtime.stop_unverified'"))[0]!.data)).toMatchObject(
        {
          cause: "max_blocks",
          held: 3,
          reasons: expect.arrayContaining(["Only 0/1 criteria met"]),
        },
      );
      // The next turn's stop is a fresh one: held again.
      expect((await handleClaudeCodeHook(ctxOf(db), stop(false))).decision).toBe("block");
    });

    it("takes the cap from the options", async () => {
      const db = await freshLedger(engine);
      await linkedSession(db);
      expect((await handleClaudeCodeHook(ctxOf(db), stop(false), { maxBlocks: 1 })).decision).toBe("block");
      expect((await handleClaudeCodeHook(ctxOf(db), stop(true), { maxBlocks: 1 })).decision).toBe("allow");
      await expect(handleClaudeCodeHook(ctxOf(db), stop(), { maxBlocks: 0 })).rejects.toThrow();
    });

    it("lets through (recorded unverified) a stop another hook is already continuing", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      expect(await handleClaudeCodeHook(ctxOf(db), stop(true))).toEqual({
        decision: "allow",
        systemMessage: expect.stringContaining("because another stop hook is already continuing this turn"),
      });
      expect((await eventTypesOf(db, id)).filter((t) => t.startsWith("runtime."))).toEqual(["runtime.stop_unverified"]);
    });

    it("lets the stop through once the criteria are met, releasing the count", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      expect((await handleClaudeCodeHook(ctxOf(db), stop())).decision).toBe("block");
      await updateCriterion(ctxOf(db), { sessionId: id, criterion: "All tests passing", status: "met", actual: "42/42", evidence: "npm test" });
      expect(await handleClaudeCodeHook(ctxOf(db), stop(true))).toEqual({ decision: "allow" });
      expect((await eventTypesOf(db)).filter((t) => t.startsWith("runtime."))).toEqual(["runtime.stop_held", "runtime.stop_released"]);
      expect(await rowsLikeSqlite(db, "select consecutive_blocks from runtime_sessions")).toEqual([{ consecutive_blocks: 0 }]);
      expect(await countOf(db, "completion_checks")).toBe(0);
    });

    it("holds a subagent's stop too, counting it apart from the agent's", async () => {
      const db = await freshLedger(engine);
      await linkedSession(db);
      expect((await handleClaudeCodeHook(ctxOf(db), stop())).decision).toBe("block");
      const answer = await handleClaudeCodeHook(ctxOf(db), subagentStop());
      expect(answer.decision).toBe("block");
      expect(await rowsLikeSqlite(db, "select consecutive_blocks, subagent_consecutive_blocks from runtime_sessions")).toEqual([
        { consecutive_blocks: 1, subagent_consecutive_blocks: 1 },
      ]);
      expect(
        JSON.parse((await rowsLikeSqlite<{ data: string }>(db, "select data from events where type = 'runtime.stop_held' order by id desc limit 1"))[0]!.data),
      ).toMatchObject({
        event: "SubagentStop",
        agentId: "agent-7f3a",
        agentType: "Explore",
      });
    });

    it("ignores sessions no longer active", async () => {
      const db = await freshLedger(engine);
      const id = await linkedSession(db);
      await updateSessionStatus(ctxOf(db), { sessionId: id, status: "failed" });
      expect(await handleClaudeCodeHook(ctxOf(db), stop())).toEqual({ decision: "allow" });
    });
  });

  describe("refusals", () => {
    it.each([
      ["not an object", "[1,2]", "hook input"],
      ["no session_id", { hook_event_name: "Stop" }, "session_id"],
      ["stop_hook_active not a boolean", { ...stop(), stop_hook_active: "yes" }, "stop_hook_active"],
      ["an unknown SessionStart source", { ...sessionStart(), source: "reboot" }, "source"],
      ["no tool_name", { ...postToolUse("Bash", {}, {}), tool_name: undefined }, "tool_name"],
      ["no hook_event_name", { session_id: RUNTIME_ID }, "hook_event_name"],
    ])("refuses %s, naming the field, writing nothing", async (_, payload, field) => {
      const db = await freshLedger(engine);
      await linkedSession(db);
      const before = await tableCountsOf(db);
      const input = typeof payload === "string" ? JSON.parse(payload) : payload;
      await expect(handleClaudeCodeHook(ctxOf(db), input)).rejects.toThrow(ValidationError);
      try {
        await handleClaudeCodeHook(ctxOf(db), input);
      } catch (error) {
        expect((error as ValidationError).field).toBe(field);
        expect((error as ValidationError).rule).toBe("runtime.invalid_hook_input");
      }
      expect(await tableCountsOf(db)).toEqual(before);
    });

    it("acknowledges other events without writing", async () => {
      const db = await freshLedger(engine);
      await linkedSession(db);
      const before = await tableCountsOf(db);
      expect(await handleClaudeCodeHook(ctxOf(db), { session_id: RUNTIME_ID, hook_event_name: "UserPromptSubmit", prompt: "hi" })).toEqual({
        decision: "allow",
      });
      expect(await tableCountsOf(db)).toEqual(before);
    });

    it("refuses a viewer", async () => {
      const db = await freshLedger(engine);
      await expect(handleClaudeCodeHook({ db, actor: { principalId: "token:9", principalKind: "token", role: "viewer", label: "v" } }, stop())).rejects.toThrow(
        RoleForbiddenError,
      );
    });
  });
});
