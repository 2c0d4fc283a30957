import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next";

describe("safeNext (issue 30: open redirect after sign-in)", () => {
  it.each([
    "//evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "\\/evil.example",
    "https://evil.example",
    "http:evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "/\t/evil.example",
    "/\n/evil.example",
    "/.//evil.example",
    "//%65vil.example",
    "%2F%2Fevil.example",
    "evil.example",
    "",
  ])("sends %j home", (next) => {
    expect(safeNext(next)).toBe("/");
  });

  it.each([
    ["/", "/"],
    ["/tasks", "/tasks"],
    ["/sessions/s1?tab=events&x=1", "/sessions/s1?tab=events&x=1"],
    ["/activity#latest", "/activity#latest"],
    ["/activity?type=a#b", "/activity?type=a#b"],
    // Encoded slashes stay encoded: a path on this site, not another host.
    ["/%2F%2Fevil.example", "/%2F%2Fevil.example"],
    ["/%5Cevil.example", "/%5Cevil.example"],
    ["/a/../b", "/b"],
  ])("keeps %j on this site as %j", (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });

  it("sends a missing next home", () => {
    expect(safeNext(undefined)).toBe("/");
    expect(safeNext(null)).toBe("/");
  });
});
