import { type Command } from "commander";
import { type GlobalOptions, MAX_DEMO_SESSIONS, positiveInt, seed } from "./options";
import { type Output } from "./output";
import { isPostgresTarget, ledgerTarget, sqliteLedgerFile } from "./ledger";

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
    .addHelpText("after", "\nExamples:\n  proofgate demo --db /tmp/x.db --sessions 50\n  proofgate demo --sessions 10000 --seed 7")
    .action(async (options: { sessions: number; seed: number; ifEmpty?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const file = await sqliteLedgerFile(globals, "demo", "fill a SQLite file with demo data, then move it over with proofgate copy --from FILE --to URL");
      const [{ openDatabase }, { generateDemoData }, { createProgressDisplay }] = await Promise.all([
        import("@/db/client"),
        import("@/server/demo/generate"),
        import("./progress"),
      ]);
      const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "demo" });
      const db = openDatabase(file);
      try {
        const existing = (db.$client.prepare("SELECT count(*) AS n FROM sessions").get() as { n: number }).n;
        if (options.ifEmpty && existing > 0) {
          out.result({ database: file, skipped: true, existingSessions: existing }, `${file} already has ${existing} sessions: no demo data added`);
          return;
        }
        const summary = await generateDemoData(db, { sessions: options.sessions, seed: options.seed, onProgress: progress.listener });
        progress.stop();
        out.result(
          { database: file, ...summary },
          `${file}: ${summary.sessions} demo sessions (seed ${summary.seed}) in ${(summary.milliseconds / 1000).toFixed(1)} s — ${Object.entries(summary.rows)
            .map(([t, n]) => `${t} ${n}`)
            .join(", ")}`,
        );
      } finally {
        progress.stop();
        db.$client.close();
      }
    });
}
