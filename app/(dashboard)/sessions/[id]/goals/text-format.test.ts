import { describe, expect, it } from "vitest";
import { clip, formatUtcSeconds, isWebLink, prettyJson, showValue } from "./text-format";

describe("isWebLink", () => {
  it("makes only absolute http(s) URLs clickable", () => {
    expect(isWebLink("https://ci.example.com/run/42")).toBe(true);
    expect(isWebLink("HTTP://example.com")).toBe(true);
    for (const unsafe of [
      "javascript:alert(1)",
      "data:text/html,<b>x</b>",
      "//evil.example.com",
      "src/auth.ts",
      "/tmp/worktrees/a",
      "https://",
      "vbscript:x",
      " javascript:https://x",
    ]) {
      expect(isWebLink(unsafe), unsafe).toBe(false);
    }
  });
});

describe("prettyJson and showValue", () => {
  it("indents JSON objects and arrays and leaves other text alone", () => {
    expect(prettyJson('{"path":"src/a.ts"}')).toBe('{\n  "path": "src/a.ts"\n}');
    expect(prettyJson("[1,2]")).toBe("[\n  1,\n  2\n]");
    expect(prettyJson("ok: src/a.ts")).toBe("ok: src/a.ts");
    expect(prettyJson("{not json")).toBe("{not json");
    expect(prettyJson(null)).toBe("");
    expect(showValue({ verdict: "ACCEPT" })).toBe('{\n  "verdict": "ACCEPT"\n}');
    expect(showValue(undefined)).toBe("");
  });
});

describe("clip", () => {
  it("keeps short text whole", () => {
    expect(clip("a\nb", 5, 100)).toEqual({ shown: "a\nb", hiddenLines: 0, clipped: false });
  });

  it("cuts by lines and counts what is hidden", () => {
    const text = Array.from({ length: 80 }, (_, i) => `line ${i + 1}`).join("\n");
    const result = clip(text, 10, 10_000);
    expect(result.shown.split("\n")).toHaveLength(10);
    expect(result).toMatchObject({ clipped: true, hiddenLines: 70 });
  });

  it("cuts one very long line by characters", () => {
    expect(clip("x".repeat(5000), 10, 100)).toEqual({ shown: "x".repeat(100), hiddenLines: 0, clipped: true });
  });
});

it("formats a time in UTC with seconds", () => {
  expect(formatUtcSeconds(Date.UTC(2026, 10, 21, 14, 3, 7))).toBe("2026-11-21 14:03:07 UTC");
});
