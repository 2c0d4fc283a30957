import { config } from "zod/v4/core";
import { commandName } from "./command-name";

/** Commands that keep validating input for as long as they run: zod's compiled parsers pay off there. */
const LONG_RUNNING = new Set(["serve", "mcp"]);

/**
 * Imported first by the CLI's and the hook's entry points, before any schema exists (zod decides
 * when each schema is built). By default zod compiles a parser for each object schema the first
 * time it parses (`new Function`), which pays off over many calls; a one-shot command parses a
 * handful of inputs and exits, so it runs zod's interpreted parsers instead (`jitless`, ~1 ms less
 * per hook call: fewer compilations and less garbage). The results are the same either way.
 * `serve` and `mcp` keep the compiled parsers (their bundles share zod's global configuration).
 */
export function configureZodForCommand(argv: readonly string[]): void {
  const command = commandName(argv);
  if (command === undefined || !LONG_RUNNING.has(command)) config({ jitless: true });
}

configureZodForCommand(process.argv);
