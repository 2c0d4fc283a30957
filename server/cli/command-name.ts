/** Global options that take a value, to find the command's name in argv without parsing it. */
const VALUED_GLOBALS = new Set(["--db", "--database-url", "--url", "--token", "--agent-id"]);

/** The command an argv names (`proofgate --db x claim s t` → claim), if it can tell without commander. */
export function commandName(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUED_GLOBALS.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg;
    else if (arg === "--") return undefined;
  }
  return undefined;
}
