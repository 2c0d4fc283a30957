import { describe, expect, it } from "vitest";
import { HOOK_EVENTS, type JsonObject, type Target, hookHandler, mcpServerEntry, mergeMcpConfig, mergeSettings, shellWord } from "./config";

const LOCAL: Target = { kind: "local", db: "/srv/ledger dir/proofgate.db" };
const REMOTE: Target = { kind: "remote", url: "https://pg.example.com/" };
const REMOTE_ENV: Target = { kind: "remote", url: "https://pg.example.com", agentId: "claude_1" };

const EXISTING: JsonObject = {
  permissions: { allow: ["Bash(npm test)"] },
  env: { FOO: "1" },
  hooks: {
    Stop: [{ hooks: [{ type: "command", command: "./notify.sh" }] }],
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }],
  },
};

describe("init's configuration", () => {
  it("adds Proofgate's hook to each event and keeps every existing key, event and hook", () => {
    const { content, changes } = mergeSettings(EXISTING, LOCAL, false);
    expect(changes).toEqual(HOOK_EVENTS.map((e) => `added the ${e} hook`));
    expect(content.permissions).toEqual(EXISTING.permissions);
    expect(content.env).toEqual({ FOO: "1" });
    const hooks = content.hooks as Record<string, { matcher?: string; hooks: JsonObject[] }[]>;
    expect(hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }]);
    expect(hooks.Stop).toEqual([
      { hooks: [{ type: "command", command: "./notify.sh" }] },
      { hooks: [{ type: "command", command: "proofgate hook claude-code --db '/srv/ledger dir/proofgate.db'" }] },
    ]);
    expect(hooks.PostToolUse).toEqual([
      { matcher: "*", hooks: [{ type: "command", command: "proofgate hook claude-code --db '/srv/ledger dir/proofgate.db'" }] },
    ]);
    // The input is not modified.
    expect((EXISTING.hooks as JsonObject).SessionStart).toBeUndefined();
  });

  it("is idempotent: merging its own output again changes nothing", () => {
    for (const [target, http] of [
      [LOCAL, false],
      [REMOTE, false],
      [REMOTE, true],
      [REMOTE_ENV, true],
    ] as const) {
      const once = mergeSettings(EXISTING, target, http);
      expect(mergeSettings(once.content, target, http)).toEqual({ content: once.content, changes: [] });
      const mcp = mergeMcpConfig({ mcpServers: { other: { command: "x" } } }, target, http);
      expect(mergeMcpConfig(mcp.content, target, http)).toEqual({ content: mcp.content, changes: [] });
    }
  });

  it("replaces its own hook when the mode changes, in place, without adding a second", () => {
    const local = mergeSettings(EXISTING, LOCAL, false).content;
    const { content, changes } = mergeSettings(local, REMOTE_ENV, true);
    expect(changes).toEqual(HOOK_EVENTS.map((e) => `updated the ${e} hook`));
    const stop = (content.hooks as Record<string, { hooks: JsonObject[] }[]>).Stop!;
    expect(stop).toHaveLength(2);
    expect(stop[1]!.hooks).toEqual([
      {
        type: "http",
        url: "https://pg.example.com/api/hooks/claude-code",
        headers: { Authorization: "Bearer $PROOFGATE_TOKEN", "X-Proofgate-Agent": "claude_1" },
        allowedEnvVars: ["PROOFGATE_TOKEN"],
      },
    ]);
  });

  it("writes the mode's flags into the hook command and the MCP server entry; a token never, only $PROOFGATE_TOKEN", () => {
    // The hook command carries no token: `proofgate hook` reads PROOFGATE_TOKEN from the environment Claude Code gives it.
    expect(hookHandler(REMOTE, false)).toEqual({ type: "command", command: "proofgate hook claude-code --url https://pg.example.com/" });
    expect(hookHandler(REMOTE, true)).toEqual({
      type: "http",
      url: "https://pg.example.com/api/hooks/claude-code",
      headers: { Authorization: "Bearer $PROOFGATE_TOKEN" },
      allowedEnvVars: ["PROOFGATE_TOKEN"],
    });
    expect(mcpServerEntry(LOCAL, false)).toEqual({ type: "stdio", command: "proofgate", args: ["mcp", "--db", "/srv/ledger dir/proofgate.db"] });
    // The token travels in the environment, never in argv: the client's own $PROOFGATE_TOKEN.
    expect(mcpServerEntry(REMOTE, false)).toEqual({
      type: "stdio",
      command: "proofgate",
      args: ["mcp", "--url", "https://pg.example.com/"],
      env: { PROOFGATE_TOKEN: "${PROOFGATE_TOKEN}" },
    });
    expect(mcpServerEntry(REMOTE_ENV, true)).toEqual({
      type: "http",
      url: "https://pg.example.com/api/mcp",
      headers: { Authorization: "Bearer ${PROOFGATE_TOKEN}", "X-Proofgate-Agent": "claude_1" },
    });
    expect(() => mcpServerEntry(LOCAL, true)).toThrow(/server URL/);
  });

  it("replaces a hook and an MCP server an earlier init wrote with a token, so re-running it removes the token", () => {
    const old = { type: "command", command: "proofgate hook claude-code --url https://pg.example.com/ --token pg_secret" };
    const settings = mergeSettings({ hooks: { Stop: [{ hooks: [old] }] } }, REMOTE, false);
    expect(settings.changes).toContain("updated the Stop hook");
    const mcp = mergeMcpConfig(
      { mcpServers: { proofgate: { type: "stdio", command: "proofgate", args: ["mcp"], env: { PROOFGATE_TOKEN: "pg_secret" } } } },
      REMOTE,
      false,
    );
    expect(mcp.changes).toEqual(["updated the proofgate MCP server"]);
    expect(JSON.stringify([settings.content, mcp.content])).not.toContain("pg_secret");
  });

  it("keeps other MCP servers and updates its own", () => {
    const { content, changes } = mergeMcpConfig(
      { mcpServers: { github: { type: "http", url: "https://x" }, proofgate: { command: "old" } }, extra: true },
      LOCAL,
      false,
    );
    expect(changes).toEqual(["updated the proofgate MCP server"]);
    expect(content).toEqual({ mcpServers: { github: { type: "http", url: "https://x" }, proofgate: mcpServerEntry(LOCAL, false) }, extra: true });
  });

  it("refuses a hooks section of the wrong shape instead of overwriting it", () => {
    expect(() => mergeSettings({ hooks: [] }, LOCAL, false)).toThrow('"hooks" must be an object');
    expect(() => mergeSettings({ hooks: { Stop: {} } }, LOCAL, false)).toThrow('"hooks.Stop" must be an array');
    expect(() => mergeMcpConfig({ mcpServers: "x" }, LOCAL, false)).toThrow('"mcpServers" must be an object');
  });

  it("quotes shell words only when needed", () => {
    expect(shellWord("/a/b.db")).toBe("/a/b.db");
    expect(shellWord("it's here")).toBe(`'it'\\''s here'`);
  });
});
