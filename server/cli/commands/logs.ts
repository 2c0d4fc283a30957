import type { Command } from "commander";
import type { LogPage } from "@/server/services/log/list-logs";
import type { LogRow } from "@/server/services/log/log-row";
import { LogInteractionInput, LogTokensInput } from "@/server/services/log/schemas";
import type { TokenUsageRow } from "@/server/services/log/log-tokens";
import type { TokenSummary } from "@/server/services/log/token-usage";
import type { Api } from "../api";
import type { Output } from "../output";
import { act, dualOption, example, int, oneOf, pick, read, sessionArg, validate, wrote } from "./shared";

const PAGE = 500;

/** `2025-01-12 14:30:22` (UTC), as BAZINGA prints its timestamps. */
export function bazingaTime(at: Date | string | number): string {
  return new Date(at).toISOString().slice(0, 19).replace("T", " ");
}

/**
 * BAZINGA's `stream-logs` window: `limit` entries after skipping the newest `offset`, found by
 * walking the keyset-paginated list (never OFFSET), printed oldest first.
 */
async function logWindow(api: Api, sessionId: string, limit: number, offset: number): Promise<LogPage["items"]> {
  const rows: LogPage["items"] = [];
  let skipped = 0;
  let cursor: number | undefined;
  while (rows.length < limit) {
    const want = Math.min(PAGE, offset - skipped + limit - rows.length);
    const page = await api.query<LogPage>("log.list", { sessionId, limit: want, order: "desc", ...(cursor === undefined ? {} : { cursor }) });
    for (const item of page.items) {
      if (skipped < offset) skipped += 1;
      else if (rows.length < limit) rows.push(item);
    }
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return rows.reverse();
}

/** The markdown BAZINGA's `stream-logs` prints. */
export function logsMarkdown(rows: readonly Pick<LogRow, "timestamp" | "agentType" | "iteration" | "content">[]): string {
  if (rows.length === 0) return "No logs found.";
  return rows
    .map((row) =>
      [`## [${bazingaTime(row.timestamp)}] Iteration ${row.iteration ?? "?"} - ${row.agentType.toUpperCase()}`, "", row.content, "", "---", ""].join("\n"),
    )
    .join("\n");
}

/** BAZINGA's `token-summary` shape: tokens per key, and the total. */
export function bazingaTokenSummary(summary: TokenSummary): Record<string, number> {
  return { ...Object.fromEntries(summary.groups.map((g) => [g.key ?? "unknown", g.tokens])), total: summary.total };
}

/** Interaction logs and token usage: log-interaction, stream-logs, log-tokens, token-summary. */
export function logCommands(program: Command, out: Output): void {
  const logInteraction = program
    .command("log-interaction")
    .description("Log an agent's interaction (secrets in the content are redacted on the way in)")
    .argument("<session>", "session id", sessionArg)
    .argument("<agent>", "agent type, e.g. developer")
    .argument("<content>", "the agent's response")
    .argument("[iteration]", "orchestration iteration", int(0))
    .argument("[agent_id]", "the agent instance, e.g. developer_1");
  dualOption(logInteraction, "group-id", "group", "the task group it concerns");
  example(logInteraction, 'proofgate log-interaction bazinga_20250112_143022 developer "Implemented JWT middleware" 5 developer_1').action(
    act(
      out,
      (sessionId: string, agentType: string, content: string, iteration: number | undefined, agentId: string | undefined, options: Record<string, unknown>) => {
        const input = validate(
          LogInteractionInput,
          { sessionId, agentType, content, iteration, agentId, groupId: pick(options, "group-id") },
          { sessionId: "session", agentType: "agent", agentId: "agent_id", groupId: "--group-id" },
        );
        return async (api) => {
          const row = await api.mutate<LogRow>("log.interaction", input);
          return wrote(row, `✓ Logged ${agentType} interaction (#${row.id}${row.redacted ? ", secrets redacted" : ""})`);
        };
      },
    ),
  );

  example(
    program
      .command("stream-logs")
      .description("Print a session's logs as markdown, oldest first (--json: the entries)")
      .argument("<session>", "session id", sessionArg)
      .argument("[limit]", "how many entries (default 50)", int(1, 100_000))
      .argument("[offset]", "skip this many of the newest entries (default 0)", int(0)),
    "proofgate stream-logs bazinga_20250112_143022 20",
  ).action(
    act(out, (sessionId: string, limit: number | undefined, offset: number | undefined) => async (api) => {
      const rows = await logWindow(api, sessionId, limit ?? 50, offset ?? 0);
      return read(rows, logsMarkdown(rows));
    }),
  );

  example(
    program
      .command("log-tokens")
      .description("Record an agent's estimated token use")
      .argument("<session>", "session id", sessionArg)
      .argument("<agent>", "agent type")
      .argument("<tokens>", "estimated tokens", int(0, 1_000_000_000))
      .argument("[agent_id]", "the agent instance")
      .option("--model <model>", "the model used"),
    "proofgate log-tokens bazinga_20250112_143022 developer 15000 developer_1",
  ).action(
    act(out, (sessionId: string, agentType: string, tokens: number, agentId: string | undefined, options: { model?: string }) => {
      const input = validate(
        LogTokensInput,
        { sessionId, agentType, tokens, agentId, model: options.model },
        { sessionId: "session", agentType: "agent", agentId: "agent_id", model: "--model" },
      );
      return async (api) => wrote(await api.mutate<TokenUsageRow>("log.tokens", input), `✓ Logged ${tokens} tokens for ${agentType}`);
    }),
  );

  example(
    program
      .command("token-summary")
      .description("Tokens per agent type (or agent id, or model) and the session total")
      .argument("<session>", "session id", sessionArg)
      .argument("[by]", "agent_type (default), agent_id or model", oneOf(["agent_type", "agent_id", "model"] as const)),
    "proofgate token-summary bazinga_20250112_143022 agent_id",
  ).action(
    act(
      out,
      (sessionId: string, by: string | undefined) => async (api) =>
        read(bazingaTokenSummary(await api.query<TokenSummary>("log.tokenSummary", { sessionId, by: by ?? "agent_type" }))),
    ),
  );
}
