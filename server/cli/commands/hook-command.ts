import { type Command, InvalidArgumentError } from "commander";
import type { GlobalOptions } from "../options";
import type { Output } from "../output";
import { type HookFlags, parseMaxBlocks, runClaudeCodeHook } from "./hook";
import { example } from "./shared";

/**
 * `proofgate hook claude-code`: Claude Code's hooks, answered as its hooks reference documents.
 * commander's side only (help, usage errors); the hook itself is hook.ts, which a hook call with
 * plain arguments runs without commander (hook-entry.ts).
 */
export function hookCommands(program: Command, _out: Output): void {
  const hook = program.command("hook").description("Answer an agent runtime's hooks (reads the hook's JSON on stdin)");
  example(
    hook
      .command("claude-code")
      .description(
        "Claude Code's SessionStart, PostToolUse, PostToolUseFailure, Stop and SubagentStop hooks: link the runtime session, record its tool calls, " +
          'and hold a stop ({"decision":"block","reason":…}) while a linked session\'s completion gate rejects. Never exits 2; an unreachable Proofgate lets the agent go on unless --fail-closed',
      )
      .option("--max-blocks <n>", "stops held in a row before one is let through (recorded runtime.stop_unverified)", maxBlocks, 3)
      .option("--fail-closed", "when Proofgate cannot be asked, hold the stop instead of letting it through"),
    "proofgate hook claude-code --db ./data/proofgate.db",
    "PROOFGATE_TOKEN=pg_… proofgate hook claude-code --url https://proofgate.example.com --max-blocks 5",
  ).action((flags: HookFlags, command: Command) => runClaudeCodeHook(command.optsWithGlobals<GlobalOptions>(), flags));
}

function maxBlocks(value: string): number {
  const n = parseMaxBlocks(value);
  if (typeof n !== "number") throw new InvalidArgumentError(n.error);
  return n;
}
