import { describe, expect, it } from "vitest";
import { createSession } from "../session/create";
import { SECRETS, SESSION, eventsOfType, setup } from "@/test/support/log-helpers";
import { cleanupErrorPatterns, getErrorPatterns, saveErrorPattern, updateErrorConfidence } from "./error-patterns";
import { sessionLearning } from "./session-learning";
import { saveStrategy } from "./strategies";

describe("error patterns and strategies (BAZINGA's context engineering)", () => {
  it("saves a pattern once per signature, counts it again, redacts secrets, and writes an event each time", () => {
    const { db, as } = setup();
    const dev = as("agent", "developer_1");
    const first = saveErrorPattern(dev, {
      projectId: "calc",
      errorType: "KeyError",
      errorMessage: `missing 'alpha' with key ${SECRETS.openaiKey}`,
      solution: "check the dict",
    });
    const again = saveErrorPattern(dev, {
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
    expect(eventsOfType(db, "error_pattern.saved")).toHaveLength(2);
    expect(() => saveErrorPattern(as("viewer"), { projectId: "calc", errorType: "E", errorMessage: "m", solution: "s" })).toThrow(/may not/);
  });

  it("filters by confidence, moves it by outcome, and cleans up expired patterns only", () => {
    const { admin, setClock } = setup();
    const p = saveErrorPattern(admin, { projectId: "calc", errorType: "E", errorMessage: "m", solution: "s" });
    expect(getErrorPatterns(admin.db, { projectId: "calc" })).toEqual([]);
    expect(updateErrorConfidence(admin, { projectId: "calc", patternHash: p.patternHash, outcome: "success" })).toMatchObject({
      previousConfidence: 0.5,
      newConfidence: 0.6,
    });
    expect(getErrorPatterns(admin.db, { projectId: "calc", minConfidence: 0.6 })).toHaveLength(1);
    expect(cleanupErrorPatterns(admin, { projectId: "calc" })).toEqual({ deletedCount: 0, projectId: "calc" });
    setClock(92 * 86_400_000);
    expect(cleanupErrorPatterns(admin, {})).toEqual({ deletedCount: 1, projectId: null });
  });

  it("shows a session's page its project's patterns and strategies", () => {
    const { admin } = setup();
    createSession(admin, { id: "s_calc", metadata: { project_id: "calc" } });
    saveErrorPattern(admin, { projectId: "calc", errorType: "E", errorMessage: "m", solution: "s" });
    saveErrorPattern(admin, { projectId: "other", errorType: "E", errorMessage: "m", solution: "s" });
    saveStrategy(admin, { projectId: "calc", topic: "implementation", insight: "test first" });
    saveStrategy(admin, { projectId: "other", topic: "general", insight: "x", sessionId: SESSION });
    const learning = sessionLearning(admin.db, { sessionId: "s_calc" });
    expect(learning.projectId).toBe("calc");
    expect(learning.errorPatterns.map((p) => [p.projectId, p.errorType, p.messagePattern])).toEqual([["calc", "E", "m"]]);
    expect(learning.strategies.map((s) => s.insight)).toEqual(["test first"]);
    // A session without a project sees what was recorded from it.
    expect(sessionLearning(admin.db, { sessionId: SESSION }).strategies.map((s) => s.insight)).toEqual(["x"]);
  });
});
