// flake-risks time,wait: the text of a fixture file this test writes, never run
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SCRIPT = path.resolve("scripts/flake-risks.mjs");

/** scripts/flake-risks.mjs --check in `cwd`: its exit code and what it printed. */
function check(cwd: string) {
  const run = spawnSync(process.execPath, [SCRIPT, "--check"], { cwd, encoding: "utf8" });
  return { code: run.status, out: run.stdout + run.stderr };
}

describe("every test's use of the wall clock, randomness, a chosen port or a fixed wait", () => {
  it("carries the reason it cannot make the test flaky (scripts/flake-risks.mjs --check)", () => {
    const { code, out } = check(process.cwd());
    expect(out).not.toContain("NO REASON GIVEN");
    expect(code).toBe(0);
  });

  it("is refused without a reason, and accepted with one on or above the line or for its file", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "flake-risks-"));
    try {
      fs.mkdirSync(path.join(root, "test"));
      const file = path.join(root, "test", "late.test.ts");
      fs.writeFileSync(file, 'it("waits", async () => {\n  await new Promise((r) => setTimeout(r, 200));\n  expect(Date.now()).toBeGreaterThan(0);\n});\n');
      const refused = check(root);
      expect(refused.code).toBe(1);
      expect(refused.out).toContain("2 uses without a reason");
      expect(refused.out).toContain("test/late.test.ts:2 (wait)");
      expect(refused.out).toContain("test/late.test.ts:3 (time)");

      const source = fs.readFileSync(file, "utf8");
      fs.writeFileSync(file, `// flake-risks time: a bound far below any clock\n${source.replace("  await", "  // flake-risk: an absence check\n  await")}`);
      const accepted = check(root);
      expect(accepted.code, accepted.out).toBe(0);
      expect(accepted.out).toContain("why: an absence check");
      expect(accepted.out).toContain("why: a bound far below any clock");
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("lists every kind with its count", () => {
    const out = execFileSync(process.execPath, [SCRIPT, "--kind", "port"], { encoding: "utf8" });
    expect(out).toMatch(/## port: a port chosen then closed \(another process may take it\) — \d+ uses in \d+ files/);
    expect(out).not.toContain("## time");
  });
});
