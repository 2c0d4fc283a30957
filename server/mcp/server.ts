import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Api } from "@/server/cli/api";
import { EXIT, describeError } from "@/server/cli/errors";
import { toDomainError } from "@/server/services/sqlite-errors";
import { type SessionState, sessionState } from "./session-state";
import { TOOLS, type ToolSpec } from "./tools";

/** The MCP server's name and version as clients see them. */
export const SERVER_INFO = { name: "proofgate", version: "0.1.0" } as const;

export const SESSION_URI = "proofgate://sessions/{sessionId}";

/** How many recent sessions `resources/list` offers. */
const LISTED_SESSIONS = 50;

/**
 * Proofgate as an MCP server over `api`: the CLI's local mode (the operator with an agent label),
 * its remote mode (a server's tRPC with a token) or a server's own request context. A thin
 * adapter: each tool is one procedure with that procedure's schema, and every rule is the API's.
 */
export function createMcpServer(api: Api): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      "Proofgate is the completion-enforcement ledger: a task is done only after a different agent verified it with evidence, and a session only when its completion gate accepts. Read a session with get_session (or the resource proofgate://sessions/{sessionId}) before deciding the next move; run check_completion before saying the work is done. A refused call names its rule and the move to use instead; nothing was written.",
  });
  for (const tool of TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, (args: Record<string, unknown>) => runTool(api, tool, args));
  }
  server.registerResource(
    "session",
    new ResourceTemplate(SESSION_URI, {
      list: async () => {
        const page = await api.query<{ items: { id: string; status: string; requirements: string | null }[] }>("session.list", { limit: LISTED_SESSIONS });
        return {
          resources: page.items.map((s) => ({
            uri: sessionUri(s.id),
            name: s.id,
            description: `${s.status} session${s.requirements ? `: ${s.requirements.slice(0, 120)}` : ""}`,
            mimeType: "application/json",
          })),
        };
      },
    }),
    {
      title: "A session's state",
      description: "Tasks by state, success criteria and the completion gate's current verdict, as JSON.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const sessionId = Array.isArray(variables.sessionId) ? variables.sessionId[0] : variables.sessionId;
      const state = await sessionState(api, { id: decodeURIComponent(sessionId ?? "") });
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(state, null, 2) }] };
    },
  );
  return server;
}

export function sessionUri(sessionId: string): string {
  return `proofgate://sessions/${encodeURIComponent(sessionId)}`;
}

async function runTool(api: Api, tool: ToolSpec, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const result: unknown =
      tool.call === "session-state"
        ? await sessionState(api, args as { id: string })
        : tool.call.kind === "mutation"
          ? await api.mutate(tool.call.path, args)
          : await api.query(tool.call.path, args);
    // Dates become ISO strings, as they would on the wire; a list is wrapped (structuredContent is an object).
    const plain = JSON.parse(JSON.stringify(result ?? null)) as unknown;
    const structured = Array.isArray(plain) ? { items: plain, count: plain.length } : ((plain ?? {}) as Record<string, unknown>);
    return { content: [{ type: "text", text: tool.summary(structured, args) }], structuredContent: structured };
  } catch (error) {
    return toolError(error);
  }
}

/** Rules for refusals that carry none of their own (tRPC's input validation, an unreachable server). */
const FALLBACK_RULE: Record<number, string> = {
  [EXIT.badInput]: "input.invalid",
  [EXIT.notFound]: "not_found",
  [EXIT.refused]: "forbidden",
  [EXIT.unreachable]: "unavailable",
};

/**
 * A refusal as the agent reads it: `<rule>: <message>`, then a gate's reasons one a line; the
 * same rule, message and reasons the CLI prints, also given as structuredContent.
 */
export function toolError(error: unknown): CallToolResult {
  const { code, payload } = describeError(toDomainError(error));
  const rule = payload.rule ?? FALLBACK_RULE[code] ?? "error";
  const head = payload.message.startsWith(`${rule}:`) ? payload.message : `${rule}: ${payload.message}`;
  const reasons = payload.reasons?.length ? `\n${payload.reasons.map((r) => `- ${r}`).join("\n")}` : "";
  return {
    isError: true,
    content: [{ type: "text", text: `${head}${reasons}` }],
    structuredContent: { error: { rule, message: payload.message, ...(payload.reasons ? { reasons: [...payload.reasons] } : {}) } },
  };
}

export type { SessionState };
