import { type Command } from "commander";
import { type GlobalOptions, MAX_DEMO_SESSIONS, positiveInt, seed } from "./options";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { rawGet } from "@/db/query";
import type { ProgressListener } from "@/server/services/progress";
import { UsageError } from "./errors";
import { type Output } from "./output";
import { isPostgresTarget, ledgerTarget } from "./ledger";

/** Operator commands on the database file: `migrate` and `demo`. */
export function databaseCommands(program: Command, out: Output): void {
  program
    .command("migrate")
    .description("Create the database file if needed (or connect to the PostgreSQL database) and apply every pending migration")
    .addHelpText(
      "after",
      "\nExamples:\n  proofgate migrate --db ./data/proofgate.db\n  proofgate migrate --database-url postgres://proofgate@db.internal/proofgate",
    )
    .action(async (_options, command: Command) => {
      const target = await ledgerTarget(command.optsWithGlobals<GlobalOptions>());
      if (isPostgresTarget(target)) {
        const [{ openPgDatabase, closePgDatabase, redactUrl }, { applyPgMigrations, findPgMigrationsFolder }] = await Promise.all([
          import("@/db/pg/client"),
          import("@/db/pg/migrate"),
        ]);
        const pg = await openPgDatabase(target, { migrate: false, max: 1 });
        try {
          const applied = await applyPgMigrations(pg, findPgMigrationsFolder());
          const { rows } = await pg.$client.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
          );
          const tables = rows[0]?.n ?? 0;
          const shown = redactUrl(target);
          out.result({ database: shown, applied, tables }, `${shown}: ${applied} migration${applied === 1 ? "" : "s"} applied, ${tables} tables`);
        } finally {
          await closePgDatabase(pg);
        }
        return;
      }
      const [{ openDatabase }, { applyMigrations, findMigrationsFolder }] = await Promise.all([import("@/db/client"), import("@/db/migrate")]);
      const file = target;
      const db = openDatabase(file, { migrate: false });
      const applied = applyMigrations(db.$client, findMigrationsFolder());
      // Ordinary tables only: a full-text index's virtual and shadow tables are an index, not data.
      const count = db.$client.prepare("SELECT count(*) AS n FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'");
      const tables = (count.get() as { n: number }).n;
      db.$client.close();
      out.result({ database: file, applied, tables }, `${file}: ${applied} migration${applied === 1 ? "" : "s"} applied, ${tables} tables`);
    });

  program
    .command("demo")
    .description("Fill the database with deterministic demo sessions (every task, criterion and goal state)")
    .option("--sessions <n>", `how many sessions (1–${MAX_DEMO_SESSIONS})`, positiveInt(MAX_DEMO_SESSIONS), 50)
    .option("--seed <s>", "seed: the same seed gives the same data", seed, 1)
    .option("--if-empty", "do nothing when the database already has sessions")
    .addHelpText(
      "after",
      "\nExamples:\n  proofgate demo --db /tmp/x.db --sessions 50\n  proofgate demo --sessions 10000 --seed 7\n  proofgate demo --database-url postgres://proofgate@localhost/proofgate_demo   # a new, empty database",
    )
    .action(async (options: { sessions: number; seed: number; ifEmpty?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const target = await ledgerTarget(globals);
      const postgres = isPostgresTarget(target);
      const [{ closeLedger, openDatabase, openLedger }, { generateDemoData }, { createProgressDisplay }, { redactUrl }] = await Promise.all([
        import("@/db/client"),
        import("@/server/demo/generate"),
        import("./progress"),
        import("@/db/pg/client"),
      ]);
      const shown = postgres ? redactUrl(target) : target;
      // Before anything is opened: a bad PROOFGATE_PROGRESS_INTERVAL_MS is refused without creating a file.
      const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "demo" });
      const ledger = await openLedger(target);
      let existing: number;
      try {
        existing = (await rawGet<{ n: number }>(ledger, sql`SELECT count(*) AS n FROM sessions`)).n;
      } finally {
        if (postgres) await closeLedger(ledger);
      }
      if (options.ifEmpty && existing > 0) {
        progress.stop();
        if (!postgres) ledger.$client.close();
        out.result({ database: shown, skipped: true, existingSessions: existing }, `${shown} already has ${existing} sessions: no demo data added`);
        return;
      }
      // The generator writes SQLite in bulk; a PostgreSQL database gets the same data through `copy`
      // from a temporary file (which requires it to hold no ledger rows yet).
      const temp = postgres ? fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-demo-")) : undefined;
      const db = temp ? openDatabase(path.join(temp, "demo.db")) : ledger;
      try {
        const summary = await generateDemoData(db, { sessions: options.sessions, seed: options.seed, onProgress: progress.listener });
        if (temp) {
          db.$client.close();
          await copyDemoInto(target, path.join(temp, "demo.db"), progress.listener);
        }
        progress.stop();
        out.result(
          { database: shown, ...summary },
          `${shown}: ${summary.sessions} demo sessions (seed ${summary.seed}) in ${(summary.milliseconds / 1000).toFixed(1)} s — ${Object.entries(summary.rows)
            .map(([t, n]) => `${t} ${n}`)
            .join(", ")}`,
        );
      } finally {
        progress.stop();
        if (db.$client.open) db.$client.close();
        if (temp) fs.rmSync(temp, { recursive: true, force: true });
      }
    });
}

/** Copy a generated demo file into a PostgreSQL database that holds no ledger rows yet (else a usage error saying so). */
async function copyDemoInto(target: string, file: string, onProgress: ProgressListener): Promise<void> {
  const [{ copyLedger }, { DomainError }] = await Promise.all([import("@/server/services/copy/copy"), import("@/server/domain/errors")]);
  try {
    await copyLedger({ from: file, to: target, onProgress });
  } catch (error) {
    if (error instanceof DomainError && error.rule === "copy.target_not_empty") {
      throw new UsageError(`demo: ${error.message}`);
    }
    throw error;
  }
}
