import type { Command } from "commander";
import type { Db } from "@/db/client";
import { followBazinga } from "@/server/services/import/bazinga/follow";
import { importBazinga } from "@/server/services/import/bazinga/importer";
import { inspectBazinga } from "@/server/services/import/bazinga/inspect";
import { type ImportReport, formatPass, formatReport } from "@/server/services/import/report";
import { importShotsOnGoal, inspectShotsOnGoal } from "@/server/services/import/shots-on-goal/importer";
import { UsageError } from "../errors";
import { ledgerTarget, namesLocalLedger } from "../ledger";
import type { GlobalOptions } from "../options";
import { createProgressDisplay } from "../progress";
import type { Output } from "../output";
import { example, int } from "./shared";

/**
 * The importers read a file on this machine and write the ledger itself, never through a server:
 * a SQLite file (`--db`, PROOFGATE_DB) or a PostgreSQL database (`--database-url`,
 * PROOFGATE_DATABASE_URL), resolved as every local-mode command resolves it.
 */
async function ledgerOf(command: Command): Promise<string> {
  const globals = command.optsWithGlobals<GlobalOptions>();
  if (!namesLocalLedger(globals) && (globals.url ?? process.env.PROOFGATE_URL)) {
    throw new UsageError(
      "import: reads a database file on this machine and writes the ledger itself: give --db (or PROOFGATE_DB) or --database-url (or PROOFGATE_DATABASE_URL) instead of --url",
    );
  }
  return ledgerTarget(globals);
}

/** Open the ledger (a file is created and migrated, a PostgreSQL database migrated, as local mode does), run `work`, close it. */
async function withLedger<T>(target: string, work: (db: Db) => T | Promise<T>): Promise<T> {
  const { closeLedger, openLedger } = await import("@/db/client");
  const db = await openLedger(target);
  try {
    return await work(db);
  } finally {
    await closeLedger(db);
  }
}

/** `proofgate import bazinga` and `proofgate import shots-on-goal`: bring an orchestrator's history in. */
export function importCommands(program: Command, out: Output): void {
  const group = program
    .command("import")
    .description("Import an orchestrator's database (BAZINGA, shots-on-goal) into the local ledger; importing again adds only what is new");

  example(
    group
      .command("bazinga")
      .description("Import a BAZINGA database (schema v12–v19), read-only; with --follow keep importing what BAZINGA writes until SIGINT or SIGTERM")
      .argument("<path>", "BAZINGA's database, e.g. bazinga/bazinga.db")
      .option("--follow", "keep running and import new and changed rows within about a second")
      .option("--interval <ms>", "with --follow: how often to look at the file", int(50, 60_000), 500),
    "proofgate import bazinga ./bazinga/bazinga.db --db ./data/proofgate.db",
    "proofgate import bazinga ./bazinga/bazinga.db --follow",
  ).action(async (file: string, options: { follow?: boolean; interval: number }, command: Command) => {
    const ledger = await ledgerOf(command);
    // Check the file before the ledger is opened: a wrong path creates nothing.
    inspectBazinga(file);
    const globals = command.optsWithGlobals<GlobalOptions>();
    const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "import" });
    await withLedger(ledger, async (db) => {
      if (!options.follow) {
        const report = await importBazinga(db, file, { onProgress: progress.listener });
        progress.stop();
        out.result(report, formatReport(report));
        return;
      }
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      try {
        let passes = 0;
        const total = await followBazinga(db, file, {
          signal: stop.signal,
          intervalMs: options.interval,
          onProgress: progress.listener,
          onPass: (report: ImportReport) => {
            progress.stop();
            passes += 1;
            if (globals.quiet && !globals.json) return;
            out.result({ pass: passes, ...report }, passes === 1 ? `${formatReport(report)}\nfollowing ${file} (Ctrl-C to stop)` : formatPass(report));
          },
          onNotice: (message) => {
            if (!globals.json) process.stderr.write(`proofgate: ${message}\n`);
          },
        });
        out.result({ stopped: true, ...total }, `stopped following ${file}: ${formatPass(total)}`);
      } finally {
        progress.stop();
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
    });
  });

  example(
    group
      .command("shots-on-goal")
      .description(
        "Import a shots-on-goal database, read-only: the v2 append-only model (twelve tables) or the v1 single-session schema; each session keeps the same id on every import",
      )
      .argument("<path>", "shots-on-goal's database file"),
    "proofgate import shots-on-goal ./shots.db --db ./data/proofgate.db",
  ).action(async (file: string, _options: unknown, command: Command) => {
    const ledger = await ledgerOf(command);
    inspectShotsOnGoal(file);
    const globals = command.optsWithGlobals<GlobalOptions>();
    const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "import" });
    await withLedger(ledger, async (db) => {
      const report = await importShotsOnGoal(db, file, { onProgress: progress.listener });
      progress.stop();
      out.result(report, formatReport(report));
    });
  });
}
