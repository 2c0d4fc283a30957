import { sql } from "drizzle-orm";
import { rawRun } from "@/db/query";

import { describe, expect, it } from "vitest";
import { ORCHESTRATOR, expectNothingWritten, lastEvent, rootGoal, setup } from "@/test/support/goal-fixtures";
import { finishAttempt } from "./finish";
import { startAttempt } from "./start";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";
import { refusedWith, rowsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

async function running(engine: Engine) {
  const f = await setup(await freshLedger(engine));
  const attemptId = (await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f) })).attempt.id;
  return { f, attemptId };
}

describeEngines("attempt finish", (engine) => {
  describe("finishAttempt", () => {
    it("records the end state and the goal-gate evidence, with the event", async () => {
      const { f, attemptId } = await running(engine);
      f.advance(5_000);
      const result = await finishAttempt(f.as(ORCHESTRATOR), {
        attemptId,
        status: "completed",
        endCommitSha: "def5678",
        diff: "diff --git a/x b/x",
        statusDetail: "validation failed",
        metrics: { cv_accuracy_mean: 0.78 },
        markers: ["METRIC:baseline_accuracy"],
        artifacts: ["models/churn.pkl"],
        verifiedFindings: 1,
        output: "[METRIC:cv_accuracy_mean] 0.78",
      });
      expect(result).toMatchObject({
        attemptId,
        status: "completed",
        endCommitSha: "def5678",
        diff: "diff --git a/x b/x",
        statusDetail: "validation failed",
        metrics: { cv_accuracy_mean: 0.78 },
        markers: ["METRIC:baseline_accuracy"],
        artifacts: ["models/churn.pkl"],
        verifiedFindings: 1,
        output: "[METRIC:cv_accuracy_mean] 0.78",
      });
      expect(result.timestamp.getTime()).toBe(Date.parse("2025-01-12T14:30:05Z"));
      expect(await lastEvent(f.db)).toMatchObject({ type: "attempt.finished", entity: "attempt", entityId: String(attemptId), data: { status: "completed" } });
    });

    it("redacts secrets in the output, the diff and the detail", async () => {
      const { f, attemptId } = await running(engine);
      const secret = "sk-abcdefghijklmnopqrstuvwx";
      const result = await finishAttempt(f.as(ORCHESTRATOR), {
        attemptId,
        status: "error",
        output: `key ${secret}`,
        diff: `+OPENAI=${secret}`,
        statusDetail: `password=hunter2`,
      });
      expect(result.output).toBe("key [REDACTED:openai_key]");
      expect(result.diff).toBe("+OPENAI=[REDACTED:openai_key]");
      expect(result.statusDetail).toBe("password=[REDACTED:password]");
    });

    it("records one result per attempt: a second finish is refused and the row stays as it was", async () => {
      const { f, attemptId } = await running(engine);
      const first = await finishAttempt(f.as(ORCHESTRATOR), { attemptId, status: "timeout" });
      const error = await expectNothingWritten(
        f.db,
        async () => finishAttempt(f.as(ORCHESTRATOR), { attemptId, status: "success" }),
        "attempt.already_finished",
      );
      expect(error.message).toContain("timeout");
      expect(await rowsOf(f.db, sql`SELECT status FROM attempt_results WHERE id = ${first.id}`)).toEqual([{ status: "timeout" }]);
      expect(await refusedWith(rawRun(f.db, sql`UPDATE attempt_results SET status = 'success' WHERE id = ${first.id}`))).toMatch(/append_only/);
    });

    it.each([
      ["an unknown status", { status: "done" }],
      ["a non-finite metric", { status: "completed", metrics: { acc: Number.POSITIVE_INFINITY } }],
      ["a negative finding count", { status: "completed", verifiedFindings: -1 }],
      ["output over 100k characters", { status: "completed", output: "x".repeat(100_001) }],
      ["too many artifacts", { status: "completed", artifacts: Array.from({ length: 1001 }, (_, i) => `a${i}`) }],
      ["a bad end commit", { status: "completed", endCommitSha: "main" }],
    ])("refuses %s and writes nothing", async (_name, fields) => {
      const { f, attemptId } = await running(engine);
      await expectNothingWritten(f.db, async () => finishAttempt(f.as(ORCHESTRATOR), { attemptId, ...fields } as never), "attempt.invalid_input");
    });

    it("refuses an unknown attempt", async () => {
      const { f } = await running(engine);
      await expectNothingWritten(f.db, async () => finishAttempt(f.as(ORCHESTRATOR), { attemptId: 12, status: "completed" }), "attempt.not_found");
    });
  });
});
