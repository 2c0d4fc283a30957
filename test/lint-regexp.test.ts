/**
 * Issue 30, item 1: `npm run lint` refuses a regular expression that backtracks or rescans
 * super-linearly, anywhere in the codebase. ESLint's own API lints a probe file (never written)
 * under server/ with the project's configuration.
 */
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

async function regexpErrors(code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, "server/domain/lint-probe.mjs") });
  return (result?.messages ?? []).filter((m) => m.severity === 2).map((m) => m.ruleId ?? m.message);
}

describe("the lint rule against super-linear regular expressions", () => {
  it("fails on a quadratic pattern (nested quantifiers, and a rescanning unanchored run)", async () => {
    expect(await regexpErrors("export const nested = (s) => /^(?:a+)+$/.test(s);\n")).toContain("regexp/no-super-linear-backtracking");
    expect(await regexpErrors("export const rescan = (s) => /a+b/.test(s);\n")).toContain("regexp/no-super-linear-move");
  }, 60_000);

  it("passes a linear one", async () => {
    expect(await regexpErrors("export const linear = (s) => /^[a-z]+$/.test(s);\n")).toEqual([]);
  }, 60_000);
});
