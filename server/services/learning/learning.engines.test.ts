import { describe, expect, it } from "vitest";
import { createSession } from "../session/create";
import { SECRETS, SESSION, eventsOfType, setup } from "@/test/support/log-helpers";
import { cleanupErrorPatterns, getErrorPatterns, saveErrorPattern, updateErrorConfidence } from "./error-patterns";
import { sessionLearning } from "./session-learning";
import { saveStrategy } from "./strategies";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

describeEngines("learning", (engine) => {
  describe("error patterns and strategies (BAZINGA's context engineering)", () => {
    it("saves a pattern once per signature, counts it again, redacts secrets, and writes an event each time", async () => {
      const { db, as } = await setup(await freshLedger(engine));
      const dev = as("agent", "developer_1");
      const first = await saveErrorPattern(dev, {
        projectId: "calc",
        errorType: "KeyError",
        errorMessage: `missing 'alpha' with key ${SECRETS.openaiKey}`,
        solution: "check the dict",
      });
      const again = await saveErrorPattern(dev, {
        projectId: "calc",
        errorType: "KeyError",
        errorMessage: `missing 'beta' with key ${SECRETS.openaiKey}`,
        solution: "check the dict before reading it",
      });
      expect(first.operation).toBe("created");
      // Quoted values are not part of the signature: the same pattern, seen twice, the longer fix kept.
      expect(again).toMatchObject({
        operation: "updated",
        patternHash: first.patternHash,
        occurrences: 2,
        solution: "check the dict before reading it",
        redacted: true,
      });
      expect(again.signatureJson).not.toContain(SECRETS.openaiKey);
      expect(await eventsOfType(db, "error_pattern.saved")).toHaveLength(2);
      await expect(saveErrorPattern(as("viewer"), { projectId: "calc", errorType: "E", errorMessage: "m", solution: "s" })).rejects.toThrow(/may not/);
    });

    it("filters by confidence, moves it by outcome, and cleans up expired patterns only", async () => {
      const { admin, setClock } = await setup(await freshLedger(engine));
      const p = await saveErrorPattern(admin, { projectId: "calc", errorType: "E", errorMessage: "m", solution: "s" });
      expect(await getErrorPatterns(admin.db, { projectId: "calc" })).toEqual([]);
      expect(await updateErrorConfidence(admin, { projectId: "calc", patternHash: p.patternHash, outcome: "success" })).toMatchObject({
        previousConfidence: 0.5,
        newConfidence: 0.6,
      });
      expect(await getErrorPatterns(admin.db, { projectId: "calc", minConfidence: 0.6 })).toHaveLength(1);
      expect(await cleanupErrorPatterns(admin, { projectId: "calc" })).toEqual({ deletedCount: 0, projectId: "calc" });
      setClock(92 * 86_400_000);
      expect(await cleanupErrorPatterns(admin, {})).toEqual({ deletedCount: 1, projectId: null });
    });

    it("shows a session's page its project's patterns and strategies", async () => {
      const { admin } = await setup(await freshLedger(engine));
      await createSession(admin, { id: "s_calc", metadata: { project_id: "calc" } });
      await saveErrorPattern(admin, { projectId: "calc", errorType: "E", errorMessage: "m", solution: "s" });
      await saveErrorPattern(admin, { projectId: "other", errorType: "E", errorMessage: "m", solution: "s" });
      await saveStrategy(admin, { projectId: "calc", topic: "implementation", insight: "test first" });
      await saveStrategy(admin, { projectId: "other", topic: "general", insight: "x", sessionId: SESSION });
      const learning = await sessionLearning(admin.db, { sessionId: "s_calc" });
      expect(learning.projectId).toBe("calc");
      expect(learning.errorPatterns.map((p) => [p.projectId, p.errorType, p.messagePattern])).toEqual([["calc", "E", "m"]]);
      expect(learning.strategies.map((s) => s.insight)).toEqual(["test first"]);
      // A session without a project sees what was recorded from it.
      expect((await sessionLearning(admin.db, { sessionId: SESSION })).strategies.map((s) => s.insight)).toEqual(["x"]);
    });
  });
});
