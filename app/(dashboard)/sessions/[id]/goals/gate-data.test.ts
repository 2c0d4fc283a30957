import { describe, expect, it } from "vitest";
import { attemptOf, describeCriterion, formatValue, readCriteriaResults, readPivot, statusLabel } from "./gate-data";

describe("readCriteriaResults", () => {
  it("reads the goal gate's stored results, numbers rounded and missing values as none", () => {
    const stored = [
      {
        criterionId: "AC1",
        kind: "metric_threshold",
        subject: "cv_accuracy_mean",
        target: ">= 0.8",
        status: "NOT_MET",
        actual: 0.7169524561380968,
        message: "cv_accuracy_mean is 0.71…",
      },
      {
        criterionId: "AC2",
        kind: "marker_required",
        subject: "METRIC:baseline_*",
        target: "[METRIC:baseline_*]",
        status: "NOT_MET",
        actual: null,
        message: "no marker",
      },
      {
        criterionId: "AC3",
        kind: "finding_count",
        subject: "verified findings",
        target: ">= 2 verified findings",
        status: "MET",
        actual: 4,
        message: "4 verified findings",
      },
    ];
    expect(readCriteriaResults(stored).map((c) => [c.criterionId, c.status, c.actual, c.target])).toEqual([
      ["AC1", "NOT_MET", "0.717", ">= 0.8"],
      ["AC2", "NOT_MET", "none", "[METRIC:baseline_*]"],
      ["AC3", "MET", "4", ">= 2 verified findings"],
    ]);
  });

  it("skips entries that are not objects and reads an unknown status as UNKNOWN", () => {
    expect(readCriteriaResults([null, 3, "x", { criterionId: "AC9", status: "MAYBE" }])).toEqual([
      { criterionId: "AC9", kind: "", subject: "", status: "UNKNOWN", actual: "none", target: "", message: "" },
    ]);
    expect(readCriteriaResults({ not: "a list" })).toEqual([]);
  });
});

describe("readPivot", () => {
  it("reads the advice and drops what is not text", () => {
    expect(readPivot({ shouldPivot: true, attemptsLeft: 2, unachievable: false, suggestions: ["try another model", "", null] })).toEqual({
      shouldPivot: true,
      attemptsLeft: 2,
      unachievable: false,
      suggestions: ["try another model"],
    });
  });

  it("is null without advice, and an unlimited goal has no attempts-left count", () => {
    expect(readPivot(null)).toBeNull();
    expect(readPivot({ shouldPivot: false })).toEqual({ shouldPivot: false, attemptsLeft: null, unachievable: false, suggestions: [] });
  });
});

describe("describeCriterion", () => {
  const none = { metric: null, op: null, target: null, marker: null, artifactPattern: null, minCount: null };
  it("states each kind of acceptance criterion as one line", () => {
    expect(describeCriterion({ ...none, kind: "metric_threshold", metric: "tests_failed", op: "==", target: 0 })).toBe("tests_failed == 0");
    expect(describeCriterion({ ...none, kind: "marker_required", marker: "METRIC:baseline_*" })).toBe("marker [METRIC:baseline_*]");
    expect(describeCriterion({ ...none, kind: "artifact_exists", artifactPattern: "*.tar.gz" })).toBe("an artifact matching *.tar.gz");
    expect(describeCriterion({ ...none, kind: "finding_count", minCount: 1 })).toBe("at least 1 verified finding");
    expect(describeCriterion({ ...none, kind: "finding_count", minCount: 2 })).toBe("at least 2 verified findings");
  });
});

describe("small formats", () => {
  it("formats values, statuses and attempt counts", () => {
    expect([formatValue(0.8), formatValue(12), formatValue(undefined), formatValue("dist/a.tar.gz"), formatValue({ a: 1 })]).toEqual([
      "0.8",
      "12",
      "none",
      "dist/a.tar.gz",
      '{"a":1}',
    ]);
    expect(statusLabel("NOT_MET")).toBe("NOT MET");
    expect([attemptOf(2, 3), attemptOf(2, null)]).toEqual(["attempt 2 of 3", "attempt 2"]);
  });
});
