import { describe, expect, it } from "vitest";
import { consumptionScopeId, errorSignature, isExpired, nextConfidence, patternHash, pythonJson, strategyId, strategyTopic } from "./learning";
import { sha256Hex } from "@/server/services/learning/sha256";

// Expected values computed with BAZINGA's own bazinga_db.py (v19) on the same input.
describe("BAZINGA's context-engineering rules", () => {
  it("reduces an error to BAZINGA's signature, serialises it as Python does and gives BAZINGA's hash", () => {
    const signature = errorSignature("ModuleNotFoundError", "No module named 'requests' in /home/u/app/main.py line 12", ["import", "deps"], ["main.py:12"]);
    expect(pythonJson(signature)).toBe(
      '{"error_type": "ModuleNotFoundError", "message_pattern": "No module named \'...\' in .../main.py line N", "context_hints": ["import", "deps"], "stack_pattern": ["main.py:12"]}',
    );
    expect(patternHash(sha256Hex, signature)).toBe("c9a291046d30e73bd8155370d619b1ea9d7d3101694530f005f339dcde6e7c70");
    expect(errorSignature("  ", "x").error_type).toBe("Unknown");
    expect(pythonJson({ a: "é" })).toBe('{"a": "\\u00e9"}');
  });

  it("moves confidence +0.1 (at most 1) on success and −0.2 (at least 0.1) on a false match", () => {
    expect(nextConfidence(0.5, true)).toBe(0.6);
    expect(nextConfidence(0.95, true)).toBe(1);
    expect(nextConfidence(0.5, false)).toBe(0.3);
    expect(nextConfidence(0.2, false)).toBe(0.1);
  });

  it("expires a pattern the day after its TTL, by date", () => {
    const seen = new Date("2026-01-01T12:00:00Z");
    expect(isExpired(seen, 90, new Date("2026-04-01T23:00:00Z"))).toBe(false);
    expect(isExpired(seen, 90, new Date("2026-04-02T00:30:00Z"))).toBe(true);
  });

  it("derives strategy ids and normalises topics as bazinga_db.py does", () => {
    expect(strategyId(sha256Hex, "calc", "implementation", "Write the failing test first")).toBe("calc_implementation_d6f4a336a3422309");
    expect(strategyTopic("CALC")).toBe("general");
    expect(strategyTopic("architecture")).toBe("architecture");
    expect(consumptionScopeId(sha256Hex, "s", "A", "developer", 1, 2)).toMatch(/^[0-9a-f]{32}$/);
  });
});
