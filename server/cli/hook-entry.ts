import { CommanderError } from "commander";
import { hookCommands } from "./commands/hook";
import { EXIT } from "./errors";
import type { GlobalOptions } from "./options";
import { createOutput } from "./output";
import { newProgram } from "./program";

// `proofgate hook …`, bundled alone (dist/hook.cjs, run by bin/proofgate.mjs): Claude Code runs it on
// every tool call, so it reads and evaluates only what a hook needs. The same program as index.ts's
// with the `hook` group only; a usage error exits 1, never 2 (Claude Code's "block").
async function hookMain(argv: string[]): Promise<number> {
  const program = newProgram(argv.includes("--json"));
  hookCommands(
    program,
    createOutput(() => program.opts<GlobalOptions>()),
  );
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError && (error.code === "commander.helpDisplayed" || error.code === "commander.version")) return EXIT.ok;
    if (error instanceof CommanderError) return EXIT.refused;
    throw error;
  }
}

hookMain(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`proofgate hook: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = EXIT.refused;
  },
);
