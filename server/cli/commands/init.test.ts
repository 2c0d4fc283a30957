/** `proofgate init` as a user runs it: the built executable in a project directory. */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bin", "proofgate.mjs");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function project(files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-init-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function run(cwd: string, ...args: string[]) {
  const env = { ...process.env };
  delete env.PROOFGATE_URL;
  delete env.PROOFGATE_DB;
  delete env.PROOFGATE_TOKEN;
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const read = (dir: string, name: string) => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as Record<string, unknown>;
const snapshot = (dir: string) =>
  Object.fromEntries(
    [".claude/settings.json", ".mcp.json"].filter((f) => fs.existsSync(path.join(dir, f))).map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]),
  );

const SETTINGS = JSON.stringify({ model: "opus", hooks: { Stop: [{ hooks: [{ type: "command", command: "./notify.sh" }] }] } });
const MCP = JSON.stringify({ mcpServers: { github: { type: "http", url: "https://api.example.com/mcp" } } });

describe("proofgate init claude-code", () => {
  it("merges into existing settings, naming the database by its absolute path, and a second run changes nothing", () => {
    const dir = project({ ".claude/settings.json": SETTINGS, ".mcp.json": MCP });
    const first = run(dir, "init", "claude-code", "--db", "data/ledger.db");
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toContain(
      "updated .claude/settings.json: added the SessionStart hook; added the PostToolUse hook; added the PostToolUseFailure hook; added the Stop hook; added the SubagentStop hook",
    );
    expect(first.stdout).toContain("updated .mcp.json: added the proofgate MCP server");
    const settings = read(dir, ".claude/settings.json") as { model: string; hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(settings.model).toBe("opus");
    const command = `proofgate hook claude-code --db ${path.join(fs.realpathSync(dir), "data", "ledger.db")}`;
    expect(settings.hooks.Stop!.map((g) => g.hooks[0]!.command)).toEqual(["./notify.sh", command]);
    expect(Object.keys(settings.hooks).sort()).toEqual(["PostToolUse", "PostToolUseFailure", "SessionStart", "Stop", "SubagentStop"]);
    expect(read(dir, ".mcp.json")).toEqual({
      mcpServers: {
        github: { type: "http", url: "https://api.example.com/mcp" },
        proofgate: { type: "stdio", command: "proofgate", args: ["mcp", "--db", path.join(fs.realpathSync(dir), "data", "ledger.db")] },
      },
    });

    const files = snapshot(dir);
    const second = run(dir, "init", "claude-code", "--db", "data/ledger.db");
    expect(second).toEqual({ code: 0, stdout: ".claude/settings.json: unchanged\n.mcp.json: unchanged\n", stderr: "" });
    expect(snapshot(dir)).toEqual(files);
  });

  it("--dry-run prints the result and writes nothing", () => {
    const dir = project({ ".claude/settings.json": SETTINGS });
    const dry = run(dir, "init", "claude-code", "--url", "https://pg.example.com", "--http", "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('"url": "https://pg.example.com/api/hooks/claude-code"');
    expect(dry.stdout).toContain('"url": "https://pg.example.com/api/mcp"');
    expect(dry.stdout).toContain("dry run: nothing was written");
    expect(snapshot(dir)).toEqual({ ".claude/settings.json": SETTINGS });
  });

  it("refuses a malformed file and writes neither", () => {
    const dir = project({ ".claude/settings.json": SETTINGS, ".mcp.json": "{ not json" });
    const bad = run(dir, "init", "claude-code", "--db", "x.db");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^proofgate: \.mcp\.json: is not valid JSON/);
    expect(snapshot(dir)).toEqual({ ".claude/settings.json": SETTINGS, ".mcp.json": "{ not json" });
    expect(run(dir, "init", "claude-code", "--http")).toMatchObject({ code: 2, stderr: expect.stringContaining("--http: needs a server") });
  });
});

describe("proofgate init with a server: the token is never written, $PROOFGATE_TOKEN is (issue 30 item 7)", () => {
  /** A stand-in for the server's hook endpoint: records each request's Authorization, answers "nothing to say". */
  async function hookServer() {
    const seen: { url: string; authorization: string | undefined }[] = [];
    const server = http.createServer((req, res) => {
      req.resume().on("end", () => {
        seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  /** Run a configured command as Claude Code would: in its environment, the hook's JSON on stdin. */
  function runHook(command: string, env: Record<string, string>, stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [BIN, ...command.split(" ").slice(1)], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin);
    return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  }

  it("writes no token for Claude Code (command or http hooks, stdio or http MCP), says to export PROOFGATE_TOKEN, and the hook reads it", async () => {
    const server = await hookServer();
    try {
      for (const http of [false, true]) {
        const dir = project();
        const init = run(dir, "--url", server.url, "--token", "pg_given_secret", "init", "claude-code", ...(http ? ["--http"] : []));
        expect(init.code).toBe(0);
        expect(init.stdout).toContain("note: --token is not written into the configuration");
        expect(init.stdout).toContain(
          "note: the configuration reads the token from PROOFGATE_TOKEN: export PROOFGATE_TOKEN=pg_… in the environment Claude Code runs in",
        );
        const files = snapshot(dir);
        expect(Object.keys(files)).toEqual([".claude/settings.json", ".mcp.json"]);
        expect(JSON.stringify(files)).not.toContain("pg_given_secret");
        expect(JSON.stringify(files)).toContain("PROOFGATE_TOKEN");
        if (http) continue;
        const settings = read(dir, ".claude/settings.json") as { hooks: Record<string, { hooks: { command: string }[] }[]> };
        const command = settings.hooks.Stop![0]!.hooks[0]!.command;
        expect(command).toBe(`proofgate hook claude-code --url ${server.url}`);
        const stop = JSON.stringify({ hook_event_name: "Stop", session_id: "runtime-1", stop_hook_active: false });
        expect(await runHook(command, { PROOFGATE_TOKEN: "pg_from_the_environment" }, stop)).toEqual({ code: 0, stdout: "", stderr: "" });
        expect(server.seen).toEqual([{ url: "/api/hooks/claude-code?max_blocks=3", authorization: "Bearer pg_from_the_environment" }]);
      }
    } finally {
      await server.close();
    }
  });

  it("prints no token in init mcp's block either", () => {
    const printed = run(project(), "--url", "https://pg.example.com", "--token", "pg_given_secret", "init", "mcp", "--http");
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({
      mcpServers: { proofgate: { type: "http", url: "https://pg.example.com/api/mcp", headers: { Authorization: "Bearer ${PROOFGATE_TOKEN}" } } },
    });
    expect(printed.stderr).toContain("export PROOFGATE_TOKEN=pg_… in the environment the MCP client runs in");
    expect(printed.stdout + printed.stderr).not.toContain("pg_given_secret");
  });
});

describe("proofgate init mcp", () => {
  it("prints the block to paste into any MCP client's configuration, and only that on stdout", () => {
    const dir = project();
    const printed = run(dir, "init", "mcp", "--url", "https://pg.example.com", "--agent-id", "cursor_1");
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({
      mcpServers: {
        proofgate: {
          type: "stdio",
          command: "proofgate",
          args: ["mcp", "--url", "https://pg.example.com", "--agent-id", "cursor_1"],
          env: { PROOFGATE_TOKEN: "${PROOFGATE_TOKEN}" },
        },
      },
    });
    expect(printed.stderr).toContain("PROOFGATE_TOKEN");
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
