/**
 * What a hook call loads. Claude Code runs `proofgate hook claude-code` on every tool call, so its
 * start-up is a budget (issue 17: ≤ 100 ms per call as a whole process): these tests fail when the
 * hook's path starts loading something it must not, before any benchmark would notice.
 */
// flake-risks time: a unique name, nothing more: any value unlike another run's will do
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Metafile, build } from "esbuild";
import { afterAll, describe, expect, it, vi } from "vitest";
import { hookBuildOptions } from "../../scripts/build-cli.mjs";
import { proofgate } from "./commands/hook-test-support";
import { RUNTIME_ID, postToolUse, sessionStart, stop } from "@/server/services/runtime/test-payloads";

vi.setConfig({ testTimeout: 120_000 });

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** Not in dist/hook.cjs at all: the API layer, the MCP SDK, the web stack, other commands' machinery. */
const NEVER_IN_THE_BUNDLE = [
  /node_modules\/@trpc\//,
  /node_modules\/@modelcontextprotocol\//,
  /node_modules\/next\//,
  /node_modules\/better-auth\//,
  /node_modules\/superjson\//,
  /^server\/api\/routers\//,
  /^server\/services\/import\//,
  /^server\/demo\//,
  // zod's other languages: English only (scripts/build-cli.mjs's english-zod-only).
  /^node_modules\/zod\/v4\/locales\/(?!en\.js$)/,
];
/**
 * Nor on a local hook call's path: commander and the CLI's program (in the bundle for help and
 * usage errors only: hook-entry.ts's fallback), and the tables a hook does not touch.
 */
const NEVER_ON_THE_HOOK_PATH = [
  ...NEVER_IN_THE_BUNDLE,
  /node_modules\/commander\//,
  /^server\/cli\/(index|program|errors|api|local-api|remote-api|commands\/shared|commands\/hook-command)\.ts$/,
  /^db\/schema\/(index|relations|auth|analytics|imports|config|context-engineering)\.ts$/,
];

/** The inputs with code in dist/hook.cjs (esbuild lists tree-shaken ones too, with no bytes). */
function bundled(metafile: Metafile): Set<string> {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint === "server/cli/hook-entry.ts")!;
  return new Set(Object.entries(output.inputs).flatMap(([input, { bytesInOutput }]) => (bytesInOutput > 0 ? [input] : [])));
}

/** The bundle's inputs a local-mode hook call evaluates: every import from the entry, except the commander fallback and the remote mode's HTTP client. */
function localHookPath(metafile: Metafile): Set<string> {
  const inBundle = bundled(metafile);
  const entry = "server/cli/hook-entry.ts";
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const edge of metafile.inputs[file]?.imports ?? []) {
      if (edge.external) continue;
      if (file === entry && edge.kind === "dynamic-import") continue; // commander, for what the fast path leaves to it
      if (edge.path === "server/cli/http.ts") continue; // --url: the server answers
      if (inBundle.has(edge.path) && !seen.has(edge.path)) {
        seen.add(edge.path);
        queue.push(edge.path);
      }
    }
  }
  return seen;
}

describe("the hook's bundle (dist/hook.cjs)", () => {
  it("holds no API layer, MCP SDK or importer, and a local hook call's path reaches no commander, routers or unused tables", async () => {
    const { metafile } = (await build({ ...hookBuildOptions(), absWorkingDir: ROOT, write: false, metafile: true, logLevel: "silent" })) as {
      metafile: Metafile;
    };
    const inputs = [...bundled(metafile)];
    for (const pattern of NEVER_IN_THE_BUNDLE) expect(inputs.filter((input) => pattern.test(input))).toEqual([]);
    const reached = [...localHookPath(metafile)];
    // Not vacuous: the path is the hook's service, its schemas and the database.
    expect(reached).toEqual(expect.arrayContaining(["server/services/runtime/hook.ts", "db/client.ts", "db/schema/runtime.ts"]));
    expect(reached.some((input) => input.includes("node_modules/zod/"))).toBe(true);
    for (const pattern of NEVER_ON_THE_HOOK_PATH) expect(reached.filter((input) => pattern.test(input))).toEqual([]);
  });

  it("loads none of Node's stream, network, process or ESM-loader modules for a held stop or a recorded tool call", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-hook-load-"));
    dirs.push(dir);
    const db = path.join(dir, "proofgate.db");
    expect((await proofgate(["--db", db, "migrate"])).code).toBe(0);
    expect((await proofgate(["hook", "claude-code", "--db", db], { stdin: JSON.stringify(sessionStart()) })).code).toBe(0);
    expect((await proofgate(["--db", db, "create-session", "s1", "simple", "Load"], { env: { PROOFGATE_RUNTIME_SESSION: RUNTIME_ID } })).code).toBe(0);
    expect((await proofgate(["--db", db, "save-success-criteria", "s1", '[{"criterion":"All tests passing"}]'])).code).toBe(0);

    // Records the internal modules Node loads after the preload itself: what the command added.
    const recorder = path.join(dir, "record.cjs");
    fs.writeFileSync(
      recorder,
      `const before = new Set(process.moduleLoadList);
process.on("exit", () => require("node:fs").writeFileSync(process.env.PG_LOADED, JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m)))));`,
    );
    const loaded = async (payload: unknown, expectOut: RegExp): Promise<string[]> => {
      const out = path.join(dir, `loaded-${Date.now()}.json`);
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ["--require", recorder, path.join(ROOT, "bin", "proofgate.cjs"), "hook", "claude-code", "--db", db], {
          env: { ...process.env, PG_LOADED: out, PROOFGATE_DB: "", PROOFGATE_URL: "" },
          stdio: ["pipe", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
        child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(JSON.stringify(payload));
      });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(expectOut);
      return (JSON.parse(fs.readFileSync(out, "utf8")) as string[]).map((m) => m.replace(/^NativeModule /, ""));
    };
    const forbidden = /^(net|tty|stream|child_process|http|https|crypto|zlib|worker_threads|module|internal\/modules\/esm\/loader|internal\/streams\/.*)$/;
    const held = await loaded(stop(), /"decision":"block"/);
    expect(held.filter((m) => forbidden.test(m))).toEqual([]);
    const recorded = await loaded(postToolUse("Bash", { command: "npm test" }, { stdout: "ok", stderr: "", interrupted: false, isImage: false }), /^$/);
    expect(recorded.filter((m) => forbidden.test(m))).toEqual([]);
  });
});
