import { Command } from "commander";
// One field of package.json: the bundler inlines the string, not the file.
import { version } from "@/package.json";

/** The `proofgate` program with its global options, no command yet (index.ts adds them; hook-entry.ts adds `hook` alone). */
export function newProgram(json: boolean): Command {
  return (
    new Command("proofgate")
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
