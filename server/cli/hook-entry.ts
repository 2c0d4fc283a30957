import "./zod-one-shot";
import { runClaudeCodeHook } from "./commands/hook";
import { plainHookArgs } from "./hook-args";
import type { EXIT } from "./errors";
import type { GlobalOptions } from "./options";

// `proofgate hook …`, bundled alone (dist/hook.cjs, run by bin/proofgate.cjs): Claude Code runs it on
// every tool call, so it reads and evaluates only what a hook needs. Arguments as a configuration
// written by `proofgate init claude-code` gives them are parsed here, without commander (loading and
// building the program was ~4 ms of each call); anything else (help, a usage error, a form this does
// not know) goes through the same program as index.ts's with the `hook` group only. A usage error
// exits 1, never 2 (Claude Code's "block").

// errors.ts's exit codes, typed to equal them (that module loads commander, tRPC's errors and more).
const OK: (typeof EXIT)["ok"] = 0;
const REFUSED: (typeof EXIT)["refused"] = 1;

async function hookMain(argv: string[]): Promise<number> {
  const plain = plainHookArgs(argv.slice(2));
  if (plain) {
    await runClaudeCodeHook(plain.globals, plain.flags);
    return OK;
  }
  const [{ CommanderError }, { newProgram }, { hookCommands }, { createOutput }] = await Promise.all([
    import("commander"),
    import("./program"),
    import("./commands/hook-command"),
    import("./output"),
  ]);
  const program = newProgram(argv.includes("--json"));
  hookCommands(
    program,
    createOutput(() => program.opts<GlobalOptions>()),
  );
  try {
    await program.parseAsync(argv);
    return OK;
  } catch (error) {
    if (error instanceof CommanderError && (error.code === "commander.helpDisplayed" || error.code === "commander.version")) return OK;
    if (error instanceof CommanderError) return REFUSED;
    throw error;
  }
}

hookMain(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`proofgate hook: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = REFUSED;
  },
);
