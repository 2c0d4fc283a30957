import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Fixture, ORCHESTRATOR, expectNothingWritten, lastEvent, rootGoal, rowCount, setup } from "@/test/support/goal-fixtures";
import { finishAttempt } from "./finish";
import { recordToolCalls } from "./record-tool-calls";
import { startAttempt } from "./start";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

async function running(engine: Engine) {
  const f = await setup(await freshLedger(engine));
  const { attempt, tools } = await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f), tools: ["read_file"] });
  return { f, attemptId: attempt.id, readFile: tools[0]! };
}

const storedCalls = (f: Fixture, attemptId: number) =>
  rowsOf<{ order: number; toolId: number; toolName: string; input: string | null; output: string | null }>(
    f.db,
    sql`SELECT "order", tool_id AS "toolId", tool_name AS "toolName", input, output FROM tool_calls WHERE attempt_id = ${attemptId} ORDER BY "order"`,
  );

describeEngines("attempt record-tool-calls", (engine) => {
  describe("recordToolCalls", () => {
    it("appends hundreds of calls in one call and one event, numbered on from the attempt's last call", async () => {
      const { f, attemptId, readFile } = await running(engine);
      const batch = Array.from({ length: 300 }, (_, i) => ({ tool: i % 2 ? "run_command" : "read_file", input: { path: `src/${i}.ts` }, output: `ok ${i}` }));
      const eventsBefore = await rowCount(f.db, "events");
      expect(await recordToolCalls(f.as(ORCHESTRATOR), { attemptId, calls: batch })).toEqual({
        attemptId,
        count: 300,
        firstOrder: 1,
        lastOrder: 300,
        redacted: 0,
      });
      expect(await rowCount(f.db, "events")).toBe(eventsBefore + 1);
      expect(await lastEvent(f.db)).toMatchObject({
        type: "attempt.tool_calls_recorded",
        entity: "attempt",
        entityId: String(attemptId),
        data: { count: 300, firstOrder: 1, lastOrder: 300 },
      });
      expect(await recordToolCalls(f.as(ORCHESTRATOR), { attemptId, calls: [{ tool: "read_file", input: "raw text" }] })).toMatchObject({
        firstOrder: 301,
        lastOrder: 301,
      });

      const calls = await storedCalls(f, attemptId);
      expect(calls.map((c) => c.order)).toEqual(Array.from({ length: 301 }, (_, i) => i + 1));
      expect(calls[0]).toEqual({ order: 1, toolId: readFile.id, toolName: "read_file", input: '{"path":"src/0.ts"}', output: "ok 0" });
      expect(calls[300]).toMatchObject({ input: "raw text", output: null });
    });

    it("creates a tool called by name on first use without adding it to the attempt's given tools", async () => {
      const { f, attemptId } = await running(engine);
      await recordToolCalls(f.as(ORCHESTRATOR), { attemptId, calls: [{ tool: "run_command" }, { tool: "run_command" }] });
      expect(await rowCount(f.db, "tools")).toBe(2);
      expect(await rowCount(f.db, "attempt_tools")).toBe(1);
      const [a, b] = await storedCalls(f, attemptId);
      expect(a!.toolId).toBe(b!.toolId);
    });

    it("redacts secrets in inputs and outputs before storing them", async () => {
      const { f, attemptId } = await running(engine);
      const recorded = await recordToolCalls(f.as(ORCHESTRATOR), {
        attemptId,
        calls: [
          {
            tool: "run_command",
            input: { command: "deploy", env: { API_KEY: "plain-looking-value" } },
            output: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok",
          },
          { tool: "read_file", input: { path: "README.md" }, output: "fine" },
        ],
      });
      expect(recorded.redacted).toBe(1);
      const [secret, clean] = await storedCalls(f, attemptId);
      expect(JSON.parse(secret!.input!)).toEqual({ command: "deploy", env: { API_KEY: "[REDACTED:api_key]" } });
      expect(secret!.output).toBe("token [REDACTED:github_token] ok");
      expect(clean!.output).toBe("fine");
    });

    it("refuses calls for a finished attempt: it is over", async () => {
      const { f, attemptId } = await running(engine);
      await finishAttempt(f.as(ORCHESTRATOR), { attemptId, status: "completed" });
      await expectNothingWritten(
        f.db,
        async () => recordToolCalls(f.as(ORCHESTRATOR), { attemptId, calls: [{ tool: "read_file" }] }),
        "attempt.already_finished",
      );
    });

    it.each([
      ["an empty batch", []],
      ["more than 1000 calls", Array.from({ length: 1001 }, () => ({ tool: "read_file" }))],
      ["an output over 100k characters", [{ tool: "read_file" }, { tool: "read_file", output: "x".repeat(100_001) }]],
      ["an input over 100k characters as JSON", [{ tool: "read_file", input: { blob: "x".repeat(100_000) } }]],
      ["a nameless tool", [{ tool: "" }]],
      ["an unknown field", [{ tool: "read_file", result: "?" }]],
    ])("refuses %s and writes nothing", async (_name, calls) => {
      const { f, attemptId } = await running(engine);
      await expectNothingWritten(f.db, async () => recordToolCalls(f.as(ORCHESTRATOR), { attemptId, calls: calls as never }), "attempt.invalid_input");
    });

    it("refuses a batch over the total size limit and an unknown attempt", async () => {
      const { f, attemptId } = await running(engine);
      const big = Array.from({ length: 101 }, () => ({ tool: "read_file", output: "x".repeat(100_000) }));
      await expectNothingWritten(f.db, async () => recordToolCalls(f.as(ORCHESTRATOR), { attemptId, calls: big }), "attempt.invalid_input");
      await expectNothingWritten(
        f.db,
        async () => recordToolCalls(f.as(ORCHESTRATOR), { attemptId: 999, calls: [{ tool: "read_file" }] }),
        "attempt.not_found",
      );
    });
  });
});
