import { type HookFlags, parseMaxBlocks } from "./commands/hook";
import type { GlobalOptions } from "./options";

const GLOBAL_VALUES: Record<string, keyof GlobalOptions> = { "--db": "db", "--url": "url", "--token": "token", "--agent-id": "agentId" };
const GLOBAL_SWITCHES: Record<string, keyof GlobalOptions> = { "--json": "json", "--quiet": "quiet", "--verbose": "verbose" };

/**
 * `hook claude-code` with global options before `hook` or after `claude-code`, and the command's own
 * options after it, each as commander reads them (`--opt value` or `--opt=value`, the last one
 * wins): what the program would parse, or undefined for anything it should see itself.
 */
export function plainHookArgs(args: readonly string[]): { globals: GlobalOptions; flags: HookFlags } | undefined {
  const globals: GlobalOptions = {};
  const flags: HookFlags = { maxBlocks: 3 };
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--") || arg === "--") {
      if (arg.startsWith("-") || words.length >= 2) return undefined;
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const ownOption = words.length === 2;
    if (name in GLOBAL_SWITCHES || (ownOption && name === "--fail-closed")) {
      if (eq !== -1 || words.length === 1) return undefined;
      if (name === "--fail-closed") flags.failClosed = true;
      else (globals as Record<string, unknown>)[GLOBAL_SWITCHES[name]!] = true;
      continue;
    }
    if (!(name in GLOBAL_VALUES) && !(ownOption && name === "--max-blocks")) return undefined;
    if (words.length === 1) return undefined;
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else value = args[++i];
    // A missing value, or one commander might read as an option: its own error message.
    if (value === undefined || value.startsWith("-")) return undefined;
    if (name === "--max-blocks") {
      const n = parseMaxBlocks(value);
      if (typeof n !== "number") return undefined;
      flags.maxBlocks = n;
    } else (globals as Record<string, unknown>)[GLOBAL_VALUES[name]!] = value;
  }
  if (words[0] !== "hook" || words[1] !== "claude-code") return undefined;
  return { globals, flags };
}
