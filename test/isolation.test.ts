/**
 * Test files share worker processes (vitest.config.ts, `isolate: false`), so a file that changes
 * process-wide state must be named in vitest.config.ts's ISOLATED_FILES, which runs it in a process
 * of its own.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ISOLATED_FILES } from "../vitest.config";

const ROOT = path.resolve(__dirname, "..");
/**
 * What makes a file need its own process: each pattern is one way a test changes process-wide state
 * (restoring it in an afterEach does not count: a failure before the restore leaks it).
 */
const SHARED_STATE_PATTERNS: { what: string; pattern: RegExp }[] = [
  { what: "a module mock", pattern: /\bvi\.(?:mock|doMock|hoisted)\(/ },
  { what: "an environment variable (vi.stubEnv)", pattern: /\bvi\.stubEnv\(/ },
  { what: "a global (vi.stubGlobal)", pattern: /\bvi\.stubGlobal\(/ },
  { what: "an environment variable set or deleted", pattern: /(?:\bdelete\s+process\.env\b|\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=[^=])/ },
  { what: "fake timers or a fake Date", pattern: /\bvi\.(?:useFakeTimers|setSystemTime)\(/ },
  { what: "a global assigned", pattern: /\bglobalThis\.\w+\s*=[^=]/ },
  { what: "the working directory", pattern: /\bprocess\.chdir\(/ },
  { what: "a process listener", pattern: /\bprocess\.(?:on|once|addListener|prependListener)\(/ },
  { what: "the process-wide ledger or auth", pattern: /\b(?:getDb|openSharedLedger|getAuth|startServerDispatcher)\(/ },
];

const SKIP = new Set(["node_modules", ".next", "dist", "e2e", ".git", "test-results", ".e2e", "data"]);

function testFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith(".test.ts") ? [path.relative(ROOT, full).split(path.sep).join("/")] : [];
  });
}

/** What a file's text does that changes process-wide state. */
export function sharedStateIn(text: string): string[] {
  return SHARED_STATE_PATTERNS.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
}

describe("test isolation", () => {
  const files = testFiles();

  it("finds the test files", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain("test/isolation.test.ts");
  });

  it("every file that changes process-wide state is in ISOLATED_FILES", () => {
    const missing = files
      // This file names the patterns in its examples, and changes nothing.
      .filter((file) => !ISOLATED_FILES.includes(file) && file !== "test/isolation.test.ts")
      .map((file) => ({ file, does: sharedStateIn(fs.readFileSync(path.join(ROOT, file), "utf8")) }))
      .filter(({ does }) => does.length > 0);
    expect(missing, "add these to ISOLATED_FILES in vitest.config.ts").toEqual([]);
  });

  it("every file in ISOLATED_FILES exists", () => {
    expect(ISOLATED_FILES.filter((file) => !files.includes(file))).toEqual([]);
  });

  it("each pattern catches what it names, and ordinary code passes", () => {
    expect(sharedStateIn(`vi.stubEnv("X", "1")`)).toEqual(["an environment variable (vi.stubEnv)"]);
    expect(sharedStateIn(`process.env.PROOFGATE_DB = "x"`)).toEqual(["an environment variable set or deleted"]);
    expect(sharedStateIn(`delete process.env.X`)).toEqual(["an environment variable set or deleted"]);
    expect(sharedStateIn(`vi.useFakeTimers({ toFake: ["Date"] })`)).toEqual(["fake timers or a fake Date"]);
    expect(sharedStateIn(`vi.mock("@/db/client")`)).toEqual(["a module mock"]);
    expect(sharedStateIn(`process.on("exit", f)`)).toEqual(["a process listener"]);
    expect(sharedStateIn(`const db = getDb()`)).toEqual(["the process-wide ledger or auth"]);
    expect(sharedStateIn(`if (process.env.X === "1") run(); const env = { ...process.env, X: "1" };`)).toEqual([]);
  });
});
