/**
 * The built executable as installed: bin/proofgate.mjs runs dist/cli.cjs (vitest's global setup
 * built it) from V8's code cache. Each test copies the executable, the bundle and the migrations
 * into a checkout of its own, so caches written here never race the other test files' calls.
 */
// flake-risks time: a modification time a minute after the build's: only 'newer than' matters
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
vi.setConfig({ testTimeout: 60_000 });

const checkouts: string[] = [];
afterAll(() => checkouts.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function checkout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-bundle-"));
  checkouts.push(dir);
  for (const part of ["bin/proofgate.mjs", "bin/proofgate.cjs", "dist/cli.cjs", "dist/hook.cjs", "db/migrations"])
    fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

const caches = (dir: string) => fs.readdirSync(path.join(dir, "dist")).filter((f) => f.endsWith(".v8cache"));

function run(dir: string, ...args: string[]) {
  return runWith(dir, undefined, {}, ...args);
}

function runWith(dir: string, input: string | undefined, env: Record<string, string>, ...args: string[]) {
  const result = spawnSync(process.execPath, [path.join(dir, "bin", "proofgate.mjs"), ...args], {
    cwd: dir,
    encoding: "utf8",
    input,
    env: { ...process.env, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the bundled executable", () => {
  it("saves its compiled code after a command's first call, keyed to the build and the command, and runs the same from it", async () => {
    const dir = checkout();
    const db = path.join(dir, "x.db");
    expect(caches(dir)).toEqual([]);
    expect(run(dir, "--db", db, "create-session", "s1", "simple", "Cache")).toEqual({
      code: 0,
      stdout: "✓ Created session s1 (simple, enforce)\n",
      stderr: "",
    });
    const { size, mtimeMs } = fs.statSync(path.join(dir, "dist", "cli.cjs"));
    const keyed = (command: string) => new RegExp(`^cli\\.cjs\\.${size}-${Math.trunc(mtimeMs)}-[0-9a-z]+-${command}\\.v8cache$`);
    expect(caches(dir)).toEqual([expect.stringMatching(keyed("create-session"))]);
    const created = fs.readFileSync(path.join(dir, "dist", caches(dir)[0]!));
    expect(created.length).toBeGreaterThan(100_000);

    // Another command saves its own; from the caches: same answers, and each is left as it is (accepted, not rewritten).
    expect(run(dir, "--db", db, "--json", "get-session", "s1")).toMatchObject({ code: 0, stderr: "" });
    expect(caches(dir).sort()).toEqual([expect.stringMatching(keyed("create-session")), expect.stringMatching(keyed("get-session"))]);
    const read = caches(dir).find((f) => f.endsWith("-get-session.v8cache"))!;
    const saved = fs.readFileSync(path.join(dir, "dist", read));
    expect(JSON.parse(run(dir, "--db", db, "--json", "get-session", "s1").stdout)).toMatchObject({ session_id: "s1", mode: "simple" });
    expect(run(dir, "--db", db, "get-session", "nope")).toMatchObject({ code: 3, stderr: 'proofgate: session "nope" does not exist\n' });
    expect(run(dir, "--db", db, "create-session", "s2", "simple", "Cache")).toMatchObject({ code: 0, stderr: "" });
    expect(fs.readFileSync(path.join(dir, "dist", read)).equals(saved)).toBe(true);
    expect(
      fs
        .readFileSync(
          path.join(
            dir,
            "dist",
            caches(dir).find((f) => f.endsWith("-create-session.v8cache"))!,
          ),
        )
        .equals(created),
    ).toBe(true);
    expect(caches(dir)).toHaveLength(2);
  });

  it("runs `hook` from its own small bundle (dist/hook.cjs) and cache, answering as the full CLI does", async () => {
    const dir = checkout();
    const db = path.join(dir, "x.db");
    const runtime = { PROOFGATE_RUNTIME_SESSION: "rt-bundle" };
    expect(runWith(dir, undefined, runtime, "--db", db, "--quiet", "create-session", "s1", "simple", "Hook").code).toBe(0);
    const stop = JSON.stringify({
      session_id: "rt-bundle",
      transcript_path: "/tmp/t.jsonl",
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "Stop",
      stop_hook_active: false,
    });
    const held = runWith(dir, stop, {}, "hook", "claude-code", "--db", db, "--max-blocks", "2");
    expect(held).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(held.stdout)).toMatchObject({ decision: "block", reason: expect.stringContaining("holding this stop (1 of at most 2 in a row)") });
    const hook = fs.statSync(path.join(dir, "dist", "hook.cjs"));
    expect(hook.size).toBeLessThan(fs.statSync(path.join(dir, "dist", "cli.cjs")).size * 0.7);
    expect(caches(dir).filter((f) => f.startsWith("hook.cjs."))).toEqual([
      expect.stringMatching(new RegExp(`^hook\\.cjs\\.${hook.size}-${Math.trunc(hook.mtimeMs)}-[0-9a-z]+-hook\\.v8cache$`)),
    ]);
    // From the cache, the same; bad flags and input never exit 2 (Claude Code's "block").
    expect(JSON.parse(runWith(dir, stop, {}, "hook", "claude-code", "--db", db).stdout)).toMatchObject({ decision: "block" });
    expect(runWith(dir, stop, {}, "hook", "claude-code", "--db", db, "--max-blocks", "0")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("--max-blocks"),
    });
    expect(runWith(dir, "not json", {}, "hook", "claude-code", "--db", db)).toMatchObject({
      code: 0,
      stdout: "",
      stderr: expect.stringContaining("stdin: must be the hook's JSON input"),
    });
    expect(runWith(dir, undefined, {}, "hook", "claude-code", "--help")).toMatchObject({ code: 0, stdout: expect.stringContaining("--fail-closed") });
  });

  it("keeps one cache per set of V8 flags, so alternating calls do not rewrite it each time", async () => {
    const dir = checkout();
    const db = path.join(dir, "x.db");
    expect(run(dir, "--db", db, "migrate").code).toBe(0);
    const flagged = () => {
      const result = spawnSync(process.execPath, ["--stack-size=2000", path.join(dir, "bin", "proofgate.mjs"), "--db", db, "--json", "list-sessions"], {
        cwd: dir,
        encoding: "utf8",
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    expect(flagged()).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
    expect(run(dir, "--db", db, "--json", "list-sessions")).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
    // migrate's, and list-sessions' under each set of flags.
    expect(caches(dir).filter((f) => f.endsWith("-list-sessions.v8cache"))).toHaveLength(2);
    expect(caches(dir)).toHaveLength(3);
    const before = caches(dir).map((file) => fs.statSync(path.join(dir, "dist", file)).mtimeMs);
    expect(flagged()).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
    expect(run(dir, "--db", db, "--json", "list-sessions")).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
    expect(caches(dir).map((file) => fs.statSync(path.join(dir, "dist", file)).mtimeMs)).toEqual(before);
  });

  it("finds better-sqlite3's addon where npm hoisted it, beside the package instead of inside it", async () => {
    // <install>/node_modules/proofgate/{bin,dist,db} with better-sqlite3 in <install>/node_modules.
    const install = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-hoisted-"));
    checkouts.push(install);
    const dir = path.join(install, "node_modules", "proofgate");
    for (const part of ["bin/proofgate.mjs", "bin/proofgate.cjs", "dist/cli.cjs", "db/migrations"])
      fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    fs.symlinkSync(path.join(ROOT, "node_modules", "better-sqlite3"), path.join(install, "node_modules", "better-sqlite3"));
    expect(fs.existsSync(path.join(dir, "node_modules"))).toBe(false);
    const db = path.join(install, "x.db");
    expect(run(dir, "--db", db, "create-session", "s1", "simple", "Hoisted")).toEqual({
      code: 0,
      stdout: "✓ Created session s1 (simple, enforce)\n",
      stderr: "",
    });
    expect(JSON.parse(run(dir, "--db", db, "--json", "get-session", "s1").stdout)).toMatchObject({ session_id: "s1", mode: "simple" });
  });

  it("replaces a damaged cache, and one left by an earlier build", async () => {
    const dir = checkout();
    const db = path.join(dir, "x.db");
    expect(run(dir, "--db", db, "migrate").code).toBe(0);
    const [first] = caches(dir);
    fs.writeFileSync(path.join(dir, "dist", first!), "not V8's code cache");
    expect(run(dir, "--db", db, "migrate")).toMatchObject({ code: 0, stderr: "" });
    expect(caches(dir)).toEqual([first]);
    expect(fs.statSync(path.join(dir, "dist", first!)).size).toBeGreaterThan(100_000);

    // A rebuild (new modification time): the old cache is not used, and is removed.
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(dir, "dist", "cli.cjs"), later, later);
    expect(run(dir, "--db", db, "create-session", "s1", "simple", "Rebuilt")).toMatchObject({ code: 0, stderr: "" });
    const rebuilt = fs.statSync(path.join(dir, "dist", "cli.cjs"));
    expect(caches(dir)).toEqual([
      expect.stringMatching(new RegExp(`^cli\\.cjs\\.${rebuilt.size}-${Math.trunc(rebuilt.mtimeMs)}-[0-9a-z]+-create-session\\.v8cache$`)),
    ]);
    expect(caches(dir)).not.toEqual([first]);
  });

  it("runs a bundle built before the build wrapped it, and reads back a cache larger than the bundle", async () => {
    const dir = checkout();
    // An older build's shape: module code, not yet the function the executable calls. Small, so its cache is the larger file.
    const bundle = path.join(dir, "dist", "cli.cjs");
    fs.writeFileSync(
      bundle,
      'const path = require("node:path");\nprocess.stdout.write("ran " + typeof module.exports + " " + path.basename(__filename) + "\\n");\n',
    );
    expect(run(dir, "get-session", "s1")).toEqual({ code: 0, stdout: "ran object cli.cjs\n", stderr: "" });
    const [cache] = caches(dir);
    expect(cache).toMatch(/-get-session\.v8cache$/);
    const saved = fs.statSync(path.join(dir, "dist", cache!));
    expect(saved.size).toBeGreaterThan(fs.statSync(bundle).size);
    expect(run(dir, "get-session", "s1")).toEqual({ code: 0, stdout: "ran object cli.cjs\n", stderr: "" });
    // Accepted, not replaced: a rejected cache is written again, through a new file renamed over it.
    expect(fs.statSync(path.join(dir, "dist", cache!)).ino).toBe(saved.ino);
    expect(caches(dir)).toEqual([cache]);
  });
});
