import { describe, expect, it } from "vitest";
import { metricsFromMarkers, parseMarkerNumber, parseMarkers } from "./markers";

describe("parseMarkers", () => {
  it("parses named and bare markers with their value, key and line", () => {
    const text = ["[METRIC:cv_accuracy_mean] 0.85", "[FINDING] churn rises with tenure", "[STAT:ci] 0.02-0.05"].join("\n");
    expect(parseMarkers(text)).toEqual([
      { type: "METRIC", name: "cv_accuracy_mean", key: "METRIC:cv_accuracy_mean", value: "0.85", numeric: 0.85, line: 1 },
      { type: "FINDING", name: null, key: "FINDING", value: "churn rises with tenure", numeric: null, line: 2 },
      { type: "STAT", name: "ci", key: "STAT:ci", value: "0.02-0.05", numeric: null, line: 3 },
    ]);
  });

  it("counts lines across \\n, \\r\\n and \\r and skips lines that are not markers", () => {
    const text = "intro\r\n[METRIC:a] 1\rnoise\n\n  [FINDING] x";
    expect(parseMarkers(text).map((m) => [m.key, m.line])).toEqual([
      ["METRIC:a", 2],
      ["FINDING", 5],
    ]);
  });

  it.each([
    ["leading spaces", "   [METRIC:a] 1", "METRIC:a", "1"],
    ["leading tab", "\t[FINDING] tab", "FINDING", "tab"],
    ["no value", "[FINDING]", "FINDING", ""],
    ["no space before the value", "[METRIC:a]0.5", "METRIC:a", "0.5"],
    ["value padding trimmed", "[METRIC:a]    0.5   ", "METRIC:a", "0.5"],
    ["digits and underscores in the type", "[STAT_2:x] y", "STAT_2:x", "y"],
    ["dots, dashes and slashes in the name", "[METRIC:f1.macro-avg/test] 0.7", "METRIC:f1.macro-avg/test", "0.7"],
  ])("accepts %s", (_label, line, key, value) => {
    const [marker] = parseMarkers(line);
    expect(marker?.key).toBe(key);
    expect(marker?.value).toBe(value);
  });

  it.each([
    ["text before the bracket", "note: [METRIC:a] 1"],
    ["lower-case type (a Markdown checkbox)", "[x] done"],
    ["a Markdown link", "[See docs](https://example.com)"],
    ["a list item with a checkbox", "- [ ] todo"],
    ["an empty name", "[METRIC:] 1"],
    ["a space in the name", "[METRIC:a b] 1"],
    ["an unclosed bracket", "[METRIC:a 1"],
    ["a type starting with a digit", "[1METRIC] x"],
  ])("ignores %s", (_label, line) => {
    expect(parseMarkers(line)).toEqual([]);
  });

  it("returns nothing for empty text", () => {
    expect(parseMarkers("")).toEqual([]);
  });
});

describe("parseMarkerNumber", () => {
  it.each([
    ["0.85", 0.85],
    ["85%", 0.85],
    ["12.5% of rows", 0.125],
    ["0.85 (std 0.02)", 0.85],
    ["-0.3", -0.3],
    ["+2", 2],
    [".5", 0.5],
    ["5.", 5],
    ["1e-3", 0.001],
    ["2E2 units", 200],
    ["  42  ", 42],
    ["0", 0],
  ])("%j → %d", (value, expected) => {
    expect(parseMarkerNumber(value)).toBeCloseTo(expected, 12);
  });

  it.each([
    ["a range", "0.02-0.05"],
    ["a thousands separator", "1,000"],
    ["text first", "accuracy 0.85"],
    ["a version", "v2"],
    ["a trailing full stop", "0.85."],
    ["a unit glued on", "10ms"],
    ["NaN", "NaN"],
    ["Infinity", "Infinity"],
    ["an overflow", "1e999"],
    ["empty", ""],
    ["a lone sign", "-"],
    ["a lone percent sign", "%"],
  ])("gives null for %s", (_label, value) => {
    expect(parseMarkerNumber(value)).toBeNull();
  });
});

describe("metricsFromMarkers", () => {
  it("keeps numeric METRIC values, the last one winning", () => {
    const markers = parseMarkers(
      ["[METRIC:acc] 0.7", "[METRIC:f1] 0.6", "[METRIC:acc] 0.8", "[METRIC:note] high", "[STAT:acc] 0.1", "[METRIC] 0.5"].join("\n"),
    );
    expect(metricsFromMarkers(markers)).toEqual({ acc: 0.8, f1: 0.6 });
  });

  it("stores a metric named __proto__ as an own property", () => {
    const metrics = metricsFromMarkers(parseMarkers("[METRIC:__proto__] 1"));
    expect(Object.keys(metrics)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(metrics)).toBe(Object.prototype);
  });

  it("is empty without METRIC markers", () => {
    expect(metricsFromMarkers([])).toEqual({});
  });
});
