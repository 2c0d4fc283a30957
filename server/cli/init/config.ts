/**
 * What `proofgate init` writes: Claude Code's hooks (.claude/settings.json) and the MCP server
 * entry (.mcp.json, or any client's mcpServers block), merged into what a project already has.
 * Pure: the command reads and writes the files.
 */

/**
 * How the hooks and the MCP server reach Proofgate: a database file, or a server. A server's token
 * is never part of it: the configuration names $PROOFGATE_TOKEN (issue 30 item 7), since a command
 * line is visible to every local user (`ps`, /proc/<pid>/cmdline) and these files are often committed.
 */
export type Target = { kind: "local"; db: string; agentId?: string } | { kind: "remote"; url: string; agentId?: string };

/** The hook events Proofgate answers (`proofgate hook claude-code`, `/api/hooks/claude-code`). */
export const HOOK_EVENTS = ["SessionStart", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop"] as const;
const TOOL_EVENTS = new Set<string>(["PostToolUse", "PostToolUseFailure"]);

/** The environment variable a configuration names instead of a token: every entry init writes reads it from there. */
export const TOKEN_ENV = "PROOFGATE_TOKEN";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A word for a POSIX shell: as it is when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function modeArgs(target: Target): string[] {
  // No --token: `proofgate hook` and `proofgate mcp` read $PROOFGATE_TOKEN from the environment they are run in.
  const args = target.kind === "local" ? ["--db", target.db] : ["--url", target.url];
  return target.agentId ? [...args, "--agent-id", target.agentId] : args;
}

const endpoint = (url: string, path: string) => `${url.replace(/(?<!\/)\/+$/, "")}${path}`;
/** Claude Code expands `$VAR` in an http hook's headers (for the variables in allowedEnvVars) and `${VAR}` in .mcp.json. */
const bearer = (style: "hook" | "mcp") => `Bearer ${style === "hook" ? `$${TOKEN_ENV}` : `\${${TOKEN_ENV}}`}`;

/** One hook handler: the command (`proofgate hook claude-code` with the mode's flags) or, with `http`, Claude Code's http hook. */
export function hookHandler(target: Target, http: boolean): JsonObject {
  if (!http) return { type: "command", command: ["proofgate", "hook", "claude-code", ...modeArgs(target)].map(shellWord).join(" ") };
  if (target.kind !== "remote") throw new Error("http hooks need a server URL");
  return {
    type: "http",
    url: endpoint(target.url, "/api/hooks/claude-code"),
    headers: { Authorization: bearer("hook"), ...(target.agentId ? { "X-Proofgate-Agent": target.agentId } : {}) },
    allowedEnvVars: [TOKEN_ENV],
  };
}

/** The `proofgate` entry of an MCP client's `mcpServers`: the stdio server, or with `http` the server's /api/mcp. */
export function mcpServerEntry(target: Target, http: boolean): JsonObject {
  if (http) {
    if (target.kind !== "remote") throw new Error("the http transport needs a server URL");
    return {
      type: "http",
      url: endpoint(target.url, "/api/mcp"),
      headers: { Authorization: bearer("mcp"), ...(target.agentId ? { "X-Proofgate-Agent": target.agentId } : {}) },
    };
  }
  if (target.kind === "local") return { type: "stdio", command: "proofgate", args: ["mcp", ...modeArgs(target)] };
  // The token travels in the environment, not in argv (which any local user can list).
  const args = ["mcp", "--url", target.url, ...(target.agentId ? ["--agent-id", target.agentId] : [])];
  return { type: "stdio", command: "proofgate", args, env: { [TOKEN_ENV]: `\${${TOKEN_ENV}}` } };
}

/** Whether a hook handler is one Proofgate wrote (in any mode), so a re-run replaces it instead of adding a second. */
function isProofgateHook(handler: Json): boolean {
  if (!isObject(handler)) return false;
  if (handler.type === "command" && typeof handler.command === "string") return /^proofgate hook claude-code(\s|$)/.test(handler.command);
  if (handler.type === "http" && typeof handler.url === "string") return handler.url.endsWith("/api/hooks/claude-code");
  return false;
}

export interface Merged {
  /** The file's new content. */
  content: JsonObject;
  /** What changed, one phrase each; empty when nothing did. */
  changes: string[];
}

/**
 * Claude Code's settings with Proofgate's hook on each event: every other key, event and hook is
 * kept as it was; a Proofgate hook already there is left alone when equal and replaced when its
 * mode differs (so a re-run never adds a second, and switching --db to --url updates it).
 */
export function mergeSettings(existing: JsonObject, target: Target, http: boolean): Merged {
  const content = structuredClone(existing);
  const changes: string[] = [];
  if (content.hooks !== undefined && !isObject(content.hooks)) throw new Error('"hooks" must be an object');
  const hooks = (content.hooks ??= {}) as JsonObject;
  const wanted = hookHandler(target, http);
  for (const event of HOOK_EVENTS) {
    if (hooks[event] !== undefined && !Array.isArray(hooks[event])) throw new Error(`"hooks.${event}" must be an array`);
    const groups = (hooks[event] ??= []) as Json[];
    const found = findHook(groups);
    if (!found) {
      groups.push(TOOL_EVENTS.has(event) ? { matcher: "*", hooks: [wanted] } : { hooks: [wanted] });
      changes.push(`added the ${event} hook`);
    } else if (!deepEqual(found.list[found.index]!, wanted)) {
      found.list[found.index] = wanted;
      changes.push(`updated the ${event} hook`);
    }
  }
  return { content, changes };
}

function findHook(groups: Json[]): { list: Json[]; index: number } | undefined {
  for (const group of groups) {
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    const index = group.hooks.findIndex(isProofgateHook);
    if (index >= 0) return { list: group.hooks, index };
  }
  return undefined;
}

/** An MCP configuration (`.mcp.json`) with the `proofgate` server: every other server and key kept. */
export function mergeMcpConfig(existing: JsonObject, target: Target, http: boolean): Merged {
  const content = structuredClone(existing);
  if (content.mcpServers !== undefined && !isObject(content.mcpServers)) throw new Error('"mcpServers" must be an object');
  const servers = (content.mcpServers ??= {}) as JsonObject;
  const wanted = mcpServerEntry(target, http);
  const before = servers.proofgate;
  if (before !== undefined && deepEqual(before, wanted)) return { content, changes: [] };
  servers.proofgate = wanted;
  return { content, changes: [before === undefined ? "added the proofgate MCP server" : "updated the proofgate MCP server"] };
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deepEqual(a: Json, b: Json): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: Json): Json {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical(value[key]!)]),
  );
}
