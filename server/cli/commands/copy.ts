import { type Command, InvalidArgumentError } from "commander";
import type { CopyResult } from "@/server/services/copy/copy";
import { ConflictError } from "@/server/domain/errors";
import { hostileInputError } from "@/server/domain/input-guard";
import { DatabaseMissingError } from "../api";
import { UsageError } from "../errors";
import type { GlobalOptions } from "../options";
import type { Output } from "../output";
import { example, plural } from "./shared";

/** A SQLite file or a postgres:// URL: text a path or a URL can hold. */
function database(value: string): string {
  if (value.length === 0) throw new InvalidArgumentError("must name a SQLite file or a postgres:// URL");
  if (value.length > 4096) throw new InvalidArgumentError("longer than 4096 characters: not a file name or a URL");
  // `--to --dry-run` is a forgotten value, not a file to create.
  if (value.startsWith("--")) throw new InvalidArgumentError("looks like an option, not a database: give the file or URL right after the flag");
  const problem = hostileInputError(value);
  if (problem) throw new InvalidArgumentError(problem.message.replace(/^input: /, ""));
  return value;
}

function copyText(result: CopyResult, duration: (seconds: number) => string): string {
  const where = `from ${result.from} (${result.engines.from}) to ${result.to} (${result.engines.to})`;
  const full = result.tables.filter((t) => t.rows > 0);
  const width = Math.max(5, ...full.map((t) => t.table.length));
  const lines = result.dryRun
    ? [
        `would copy ${plural(result.rows, "row")} in ${plural(full.length, "table")} ${where}; ${
          result.targetNotEmpty ? `refused: the target already holds ledger rows (table ${result.targetNotEmpty})` : "the target is empty or new"
        }`,
      ]
    : [
        `✓ Copied ${plural(result.rows, "row")} in ${plural(full.length, "table")} ${where} in ${duration(result.milliseconds / 1000)}; verified: every table's row count and content hash are equal on both sides`,
      ];
  lines.push(`  ${"table".padEnd(width)}  ${"rows".padStart(9)}${result.dryRun ? "" : `  ${"time".padStart(8)}`}`);
  const time = (ms: number) => (ms < 10_000 ? `${ms} ms` : duration(ms / 1000));
  for (const t of full) lines.push(`  ${t.table.padEnd(width)}  ${String(t.rows).padStart(9)}${result.dryRun ? "" : `  ${time(t.milliseconds).padStart(8)}`}`);
  const empty = result.tables.length - full.length;
  if (empty > 0) lines.push(`  (${plural(empty, "empty table")})`);
  lines.push(`${result.secret.needed ? "! " : ""}Auth key: ${result.secret.instruction}`);
  return lines.join("\n");
}

/** `proofgate copy`: a whole ledger from one database to another, SQLite ⇄ PostgreSQL. */
export function copyCommands(program: Command, out: Output): void {
  example(
    program
      .command("copy")
      .description(
        "Copy a whole ledger between a SQLite file and a PostgreSQL database (either way) into an empty target, in one transaction, verified table by table",
      )
      .requiredOption("--from <database>", "the ledger to copy: a SQLite file or a postgres:// URL (only read)", database)
      .requiredOption("--to <database>", "an empty or new SQLite file, or a postgres:// URL of an empty database (migrated first)", database)
      .option("--dry-run", "check both sides and count the rows; create, migrate and write nothing"),
    "proofgate copy --from ./data/proofgate.db --to postgres://proofgate@db.internal/proofgate",
    "proofgate copy --from postgres://proofgate@db.internal/proofgate --to ./restored.db --json",
    "PGPASSWORD=… proofgate copy --from ./data/proofgate.db --to postgres://proofgate@db.internal/proofgate --dry-run   # (or ~/.pgpass: a password in the URL shows in ps)",
  ).action(async (options: { from: string; to: string; dryRun?: boolean }, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    if (globals.url) throw new UsageError("copy: runs on this machine, on the two databases themselves (--from, --to); --url names a server");
    const [{ copyLedger, CopyUnavailableError }, { createProgressDisplay, duration }] = await Promise.all([
      import("@/server/services/copy/copy"),
      import("../progress"),
    ]);
    const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "copy" });
    try {
      const result = await copyLedger({ from: options.from, to: options.to, dryRun: options.dryRun, onProgress: progress.listener }).catch((error: unknown) => {
        throw error instanceof CopyUnavailableError ? new DatabaseMissingError(`database unavailable: ${error.message}`) : error;
      });
      progress.stop();
      out.result(result, copyText(result, duration));
      if (result.dryRun && result.targetNotEmpty)
        throw new ConflictError("copy.target_not_empty", `${result.to} already holds ledger rows (table ${result.targetNotEmpty}): the copy would be refused`);
    } finally {
      progress.stop();
    }
  });
}
