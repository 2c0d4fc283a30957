import { EventEmitter } from "node:events";
import { Command } from "commander";
// One field of package.json: the bundler inlines the string, not the file.
import { version } from "@/package.json";

/**
 * Whether an argument that starts with "-" is a value all the same: one holding whitespace ("- fixed
 * the parser\n- added tests", "-Verbose run: 3 failed"), unless it is `--name=value`, as BAZINGA's
 * argparse reads it; and one dash followed by more than one character ("-Vfoo", "-10"), since
 * Proofgate's only short options (-V, -h) take no value and are never grouped. Commander would read
 * the first as an unknown option (exit 2) and the second as -V (the version printed, exit 0, the
 * agent's log entry lost).
 */
export function isDashedValue(arg: string): boolean {
  if (arg.length < 2 || arg[0] !== "-" || /^--[^=\s]+=/.test(arg)) return false;
  return /\s/.test(arg) || (arg[1] !== "-" && arg.length > 2);
}

/** Private-use characters around a held value's number: never an option, a command or a flag's value as typed. */
const HELD = (n: number) => `\uE000${n}\uE001`;

/**
 * Commander's Command, reading dashed values (`isDashedValue`) as values: each is held behind a
 * placeholder while commander sorts options from operands, and given back in the operands and in
 * any option's value. Every subcommand is one too.
 */
class ProofgateCommand extends Command {
  /** The values held during one parseOptions call (empty outside it). */
  private held = new Map<string, string>();

  override createCommand(name?: string): Command {
    return new ProofgateCommand(name);
  }

  override parseOptions(argv: string[]): { operands: string[]; unknown: string[] } {
    // An argument that already looks like a placeholder: leave everything to commander as it is.
    if (argv.some((arg) => arg.includes("\uE000"))) return super.parseOptions(argv);
    const masked = argv.map((arg) => {
      if (!isDashedValue(arg)) return arg;
      const token = HELD(this.held.size);
      this.held.set(token, arg);
      return token;
    });
    try {
      const { operands, unknown } = super.parseOptions(masked);
      return { operands: operands.map(this.unmask), unknown: unknown.map(this.unmask) };
    } finally {
      this.held = new Map();
    }
  }

  // An option's value is announced by an event during parseOptions (Command is an EventEmitter at
  // run time; its typings leave that out): the listener gets the value as typed.
  emit(event: string | symbol, ...args: unknown[]): boolean {
    return EventEmitter.prototype.emit.call(this, event, ...(typeof event === "string" && event.startsWith("option:") ? args.map(this.unmask) : args));
  }

  private unmask = <T>(arg: T): T => (typeof arg === "string" ? ((this.held.get(arg) as T | undefined) ?? arg) : arg);
}

/** The `proofgate` program with its global options, no command yet (index.ts adds them; hook-entry.ts adds `hook` alone). */
export function newProgram(json: boolean): Command {
  return (
    new ProofgateCommand("proofgate")
      .description("Proofgate: the completion-enforcement ledger for AI agent orchestration")
      .version(version, "-V, --version", "print the installed version")
      .option("--db <path>", "database file (local mode; default $PROOFGATE_DB or ./data/proofgate.db)")
      .option("--database-url <url>", "a PostgreSQL database instead of a file (local mode; default $PROOFGATE_DATABASE_URL)")
      .option("--url <url>", "a Proofgate server (remote mode; default $PROOFGATE_URL)")
      .option("--token <token>", "API token for remote mode (default $PROOFGATE_TOKEN)")
      .option("--json", "print machine-readable JSON")
      .option("--quiet", "print only results, no progress")
      .option("--verbose", "note on stderr what a BAZINGA-compatible command translated (extra JSON fields kept as metadata, ignored arguments)")
      .option("--agent-id <label>", "the agent label this call acts as (e.g. developer_1)")
      .showHelpAfterError(!json)
      // With --json, usage errors are reported once, as JSON, by handleError.
      .configureOutput(json ? { writeErr: () => undefined } : {})
      .exitOverride()
  );
}
