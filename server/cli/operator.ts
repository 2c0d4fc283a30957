import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { UsageError } from "./errors";
import { isPostgresTarget, ledgerTarget, sqliteLedgerFile } from "./ledger";
import { type GlobalOptions, positiveInt } from "./options";
import type { Output } from "./output";

/** Pages `backup` copies between yields to writers (better-sqlite3's default). */
const BACKUP_PAGES_PER_STEP = 100;

/** The checkout the CLI runs from (dist/cli.mjs → its parent), where the built dashboard lives. */
function projectRoot(): string {
  return process.env.PROOFGATE_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
}

/** On PostgreSQL every server must sign cookies and seal webhook secrets with one key: refuse to start without it. */
async function requireSharedSecret(): Promise<void> {
  const { sharedAuthSecret } = await import("@/server/auth/secret");
  try {
    sharedAuthSecret();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Operator commands that run the server or copy the database: `serve`, `backup`. */
export function operatorCommands(program: Command, out: Output): void {
  program
    .command("serve")
    .description("Serve the dashboard and the API from the production build (PROOFGATE_WORKERS processes, default 1)")
    .option("--port <n>", "port", positiveInt(65535), Number(process.env.PORT ?? 3000))
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--workers <n>", "processes that serve, on the one database file (default: PROOFGATE_WORKERS, else 1)", positiveInt(64))
    .addHelpText(
      "after",
      "\nExamples:\n  npm run build && proofgate serve --db ./data/proofgate.db --port 3000\n  BETTER_AUTH_SECRET=… proofgate serve --database-url postgres://proofgate@db.internal/proofgate --port 3000",
    )
    .action(async (options: { port: number; host: string; workers?: number }, command: Command) => {
      const { closeLedger, openLedger, DATABASE_URL_ENV } = await import("@/db/client");
      const { defaultWorkers, serve } = await import("./serve-entry");
      const target = await ledgerTarget(command.optsWithGlobals<GlobalOptions>());
      const postgres = isPostgresTarget(target);
      if (postgres) await requireSharedSecret();
      const root = projectRoot();
      if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) throw new UsageError(`no production build in ${root}: run npm run build first`);
      // The server's own modules (and its workers) find the ledger in the environment: exactly the one chosen here.
      if (postgres) {
        process.env[DATABASE_URL_ENV] = target;
        delete process.env.PROOFGATE_DB;
      } else {
        process.env.PROOFGATE_DB = target;
        delete process.env[DATABASE_URL_ENV];
      }
      process.env.NEXT_TELEMETRY_DISABLED = "1";
      let workers: number;
      try {
        workers = options.workers ?? defaultWorkers();
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      // Create and migrate before the first request (in the primary, before any worker opens the ledger).
      if (!process.env.PROOFGATE_WORKER) await closeLedger(await openLedger(target));
      const url = `http://${options.host}:${options.port}`;
      const shown = postgres ? (await import("@/db/pg/client")).redactUrl(target) : target;
      await serve({ root, port: options.port, host: options.host, workers, apiViaNext: process.env.PROOFGATE_API_VIA_NEXT === "1" }, () =>
        out.result(
          { url, database: shown, engine: postgres ? "postgres" : "sqlite", workers },
          `Proofgate on ${url} (database ${shown})${workers > 1 ? ` with ${workers} worker processes` : ""}`,
        ),
      );
    });

  program
    .command("backup <dest>")
    .description("Copy the database to DEST online: consistent even while agents keep writing")
    .addHelpText("after", "\nExample:\n  proofgate backup --db ./data/proofgate.db ./backups/proofgate-$(date +%F).db")
    .action(async (dest: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const file = await sqliteLedgerFile(
        globals,
        "backup",
        "back up a PostgreSQL database with pg_dump, or copy it to a file with proofgate copy --from URL --to FILE",
      );
      const [{ openDatabase }, { createProgressDisplay }] = await Promise.all([import("@/db/client"), import("./progress")]);
      if (path.resolve(dest) === path.resolve(file)) throw new UsageError("dest: must differ from the database itself");
      if (fs.existsSync(dest)) throw new UsageError(`dest: ${dest} already exists; choose a new file`);
      const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "backup" });
      const db = openDatabase(file);
      try {
        // SQLite's online backup API copies a consistent snapshot page by page without blocking writers.
        const { totalPages } = await db.$client.backup(dest, {
          progress: ({ totalPages: total, remainingPages }) => {
            progress.listener({ phase: "copying", done: total - remainingPages, total, unit: "pages" });
            return BACKUP_PAGES_PER_STEP;
          },
        });
        // The last step is not reported to the callback.
        progress.listener({ phase: "copying", done: totalPages, total: totalPages, unit: "pages" });
        progress.listener({ phase: "verifying the copy", done: 0, total: 1, unit: "checks" });
        const check = openDatabase(dest, { migrate: false }).$client;
        const integrity = check.pragma("integrity_check", { simple: true });
        check.close();
        progress.listener({ phase: "verifying the copy", done: 1, total: 1, unit: "checks" });
        progress.stop();
        out.result(
          { database: file, backup: dest, pages: totalPages, integrity },
          `backed up ${file} to ${dest} (${totalPages} pages, integrity ${String(integrity)})`,
        );
      } finally {
        progress.stop();
        db.$client.close();
      }
    });
}
