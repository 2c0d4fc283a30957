import type { Command } from "commander";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "@/server/mcp/server";
import { openApi } from "../api";
import type { GlobalOptions } from "../options";
import type { Output } from "../output";
import { example } from "./shared";

/**
 * `proofgate mcp`: an MCP server over stdio for one agent. Local mode (--db / PROOFGATE_DB) acts as
 * the machine's operator under the agent label of --agent-id / PROOFGATE_AGENT_ID; remote mode
 * (--url + --token) calls a server with the token's role. stdout carries only JSON-RPC.
 */
export function mcpCommands(program: Command, _out: Output): void {
  example(
    program.command("mcp").description("Serve Proofgate's tools to an MCP client over stdio (local: --db and --agent-id; remote: --url and --token)"),
    "proofgate --db ./data/proofgate.db --agent-id developer_1 mcp",
    "PROOFGATE_URL=https://proofgate.example.com PROOFGATE_TOKEN=pg_… proofgate mcp",
  ).action(async (_options: unknown, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const api = openApi({ ...globals, agentId: globals.agentId ?? (process.env.PROOFGATE_AGENT_ID?.trim() || undefined) });
    const server = createMcpServer(api);
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      server.server.onclose = resolve;
    });
    // The client closing its end of the pipe ends the session (the transport itself does not watch for it).
    process.stdin.once("end", () => void server.close());
    await server.connect(transport);
    await closed;
    await api.close();
  });
}
