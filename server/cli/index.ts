import { type Command, CommanderError } from "commander";
import { registerCommands } from "./commands";
import { databaseCommands } from "./database";
import { operatorCommands } from "./operator";
import { EXIT, UsageError, handleError } from "./errors";
import { type GlobalOptions } from "./options";
import { createOutput } from "./output";
import { newProgram } from "./program";
import { commandName } from "./command-name";

export { commandName };

/**
 * The `proofgate` command line: the agents' interface and the operator's tools. In local mode
 * (`--db` / PROOFGATE_DB) it opens the database file directly and acts as the machine's operator.
 * With `only`, just the group defining that command is registered (see COMMAND_GROUPS).
 */
export async function buildProgram(options: { json?: boolean; only?: string } = {}): Promise<Command> {
  const program = newProgram(options.json ?? false);
  const out = createOutput(() => program.opts<GlobalOptions>());
  databaseCommands(program, out);
  operatorCommands(program, out);
  // migrate, demo, serve and backup need no other group.
  if (!program.commands.some((c) => c.name() === options.only)) await registerCommands(program, out, options.only);
  program
    .command("help [command]")
    .description("show help for a command")
    .action((name?: string) => {
      const target = name === undefined ? program : program.commands.find((c) => c.name() === name);
      if (!target) throw new UsageError(`command: unknown command '${name}' (see proofgate help)`);
      target.outputHelp();
    });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  const program = await buildProgram({ json, only: commandName(argv) });
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return EXIT.ok;
    }
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError && (error.code === "commander.helpDisplayed" || error.code === "commander.version")) return EXIT.ok;
    // Without --json commander has already printed the message and the command's help.
    // A hook's exit 2 means "block" to Claude Code: a mistyped hook flag must not hold the agent.
    if (error instanceof CommanderError && commandName(argv) === "hook") return EXIT.refused;
    if (error instanceof CommanderError && !json) return EXIT.badInput;
    return handleError(error, json);
  }
}
