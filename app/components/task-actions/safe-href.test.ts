import { describe, expect, it } from "vitest";
import { isExternal, safeHref } from "./safe-href";

describe("safeHref", () => {
  it("links http and https URLs", () => {
    expect(safeHref("https://ci.example.com/runs/42")).toBe("https://ci.example.com/runs/42");
    expect(safeHref("  HTTP://example.com/a?b=1 ")).toBe("http://example.com/a?b=1");
  });

  it("links plain relative paths as written", () => {
    expect(safeHref("artifacts/test-results.txt")).toBe("artifacts/test-results.txt");
    expect(safeHref("/reports/coverage.html")).toBe("/reports/coverage.html");
    expect(safeHref("./notes.md")).toBe("./notes.md");
  });

  it("keeps every other scheme as text", () => {
    for (const value of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<script>", "file:///etc/passwd", "mailto:a@b.c", "vbscript:x"]) {
      expect(safeHref(value), value).toBeNull();
    }
  });

  it("keeps host-relative and backslash forms as text, since browsers resolve them to another host", () => {
    expect(safeHref("//evil.example")).toBeNull();
    expect(safeHref("/\\evil.example")).toBeNull();
    expect(safeHref("\\\\evil.example")).toBeNull();
  });

  it("keeps markup as text: characters a path cannot hold unescaped make no link", () => {
    for (const value of ["<script>alert(1)</script>", "<img/src=x/onerror=alert(1)>", 'a"onmouseover="x', "a'b", "x{y}", "a|b", "a^b", "a`b"]) {
      expect(safeHref(value), value).toBeNull();
    }
  });

  it("keeps sentences as text: a relative link is one word", () => {
    expect(safeHref("Payment provider sandbox is down")).toBeNull();
    expect(safeHref("see https://ci.example.com/runs/42")).toBeNull();
  });

  it("keeps control characters (a scheme split by a tab or newline) and empty values as text", () => {
    expect(safeHref("java\tscript:alert(1)")).toBeNull();
    expect(safeHref("java\nscript:alert(1)")).toBeNull();
    expect(safeHref("   ")).toBeNull();
  });

  it("tells an external link from a relative one", () => {
    expect(isExternal("https://example.com")).toBe(true);
    expect(isExternal("artifacts/x.txt")).toBe(false);
  });
});
