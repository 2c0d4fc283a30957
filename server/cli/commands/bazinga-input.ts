/**
 * The translation from what BAZINGA's `bazinga_db.py` (schema v19) accepts to what Proofgate's API
 * accepts, for the BAZINGA-named commands only (docs/bazinga-commands.md). The API stays strict —
 * an unknown field is refused there — so everything BAZINGA would take is mapped here: a known
 * field to its API name, anything else into the row's `metadata`, never dropped and never refused.
 * What was carried over is noted on stderr with `--verbose`.
 */
import type { Command } from "commander";
import type { GlobalOptions } from "../options";

/** A parsed argument together with what the translation did to it (for --verbose). */
export interface Translated<T> {
  value: T;
  notes: string[];
}

/** Split a JSON object into the fields the API knows and the rest (kept as metadata). */
export function splitFields(item: Record<string, unknown>, known: ReadonlySet<string>): { known: Record<string, unknown>; extra: Record<string, unknown> } {
  const knownPart: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) (known.has(key) ? knownPart : extra)[key] = value;
  return { known: knownPart, extra };
}

/** Print the translation's notes on stderr when --verbose is given (stdout stays the command's output). */
export function noteTranslation(globals: GlobalOptions, notes: readonly string[]): void {
  if (!globals.verbose) return;
  for (const note of notes) process.stderr.write(`proofgate: note: ${note}\n`);
}

/**
 * For commands whose BAZINGA parser skips what it does not know (`save-strategy`, `get-consumption`,
 * `extract-strategies` …): accept unknown flags and extra arguments, and return a note naming them.
 */
export function ignoreExtras(command: Command): Command {
  return command
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .hook("preAction", (self) => {
      // After `--` every word is an operand, the global --db or --url too: ignoring them would
      // silently run against the default database instead of the one named.
      if ((self.parent as { rawArgs?: string[] } | null)?.rawArgs?.includes("--"))
        self.error('error: "--" is not accepted here: it would make the arguments after it, --db included, ignored', {
          exitCode: 2,
          code: "commander.invalidArgument",
        });
    });
}

/** The arguments commander left over (unknown flags, excess positionals) as a note, or none. */
export function extrasNote(command: Command, name: string): string[] {
  const extra = command.args.slice(command.registeredArguments.length);
  return extra.length > 0 ? [`${name}: ignored ${extra.map((a) => JSON.stringify(a)).join(" ")} (bazinga_db.py ignores them too)`] : [];
}
