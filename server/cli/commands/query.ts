import type { Command } from "commander";
import type Database from "better-sqlite3";
import type { CompletionCheckRow } from "@/server/services/completion/check";
import type { CriterionRow } from "@/server/services/criteria/record";
import type { TokenSummary } from "@/server/services/log/token-usage";
import type { SessionRow } from "@/server/services/session/load";
import type { TaskRow } from "@/server/services/task/load";
import { isPostgresTarget, ledgerTarget, namesLocalLedger, sqliteLedgerFile } from "../ledger";
import { UsageError } from "../errors";
import type { GlobalOptions } from "../options";
import type { Output } from "../output";
import { pretty } from "../run";
import { bazingaTokenSummary } from "./logs";
import { sessionView } from "./sessions";
import { QUERY_TIMEOUT_MS, queryPostgres } from "./query-pg";
import { CheckFailed, act, example, int, read, sessionArg, snakeKeys } from "./shared";
import { taskGroupView } from "./tasks";

/** Leading `--` and `/* … *\/` comments, so a commented query is judged by its first statement word. */
const LEADING_COMMENTS = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;

/** The cheap first check, made before any database is opened. */
function assertLooksLikeSelect(sql: string): void {
  if (!/^(select|with)\b/i.test(sql.replace(LEADING_COMMENTS, ""))) throw new UsageError("sql: only a single read-only SELECT is allowed");
}

/**
 * Prepare `sql` as one read-only SELECT, or refuse. better-sqlite3 refuses more than one statement;
 * `reader` and `readonly` come from SQLite's own analysis of the compiled statement, so a
 * `WITH … DELETE` or `SELECT … RETURNING` trick is caught even though it starts like a query.
 */
export function prepareSelect(sqlite: Database.Database, sql: string): Database.Statement {
  assertLooksLikeSelect(sql);
  let statement: Database.Statement;
  try {
    statement = sqlite.prepare(sql);
  } catch (error) {
    throw new UsageError(`sql: ${(error as Error).message}`);
  }
  if (!statement.reader || !statement.readonly) throw new UsageError("sql: only a single read-only SELECT is allowed");
  return statement;
}

/** The rows, or the statement's own failure as bad input (an unbound `?` or `$name`, malformed JSON); a busy or broken file stays exit 4. */
function allRows(statement: Database.Statement): unknown[] {
  try {
    return statement.all();
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError || (error as { code?: unknown }).code === "SQLITE_ERROR")
      throw new UsageError(`sql: ${(error as Error).message}`);
    throw error;
  }
}

/** A PostgreSQL ledger, opened as it is (a read never migrates it), on one connection for one statement. */
async function queryPostgresLedger(url: string, sql: string, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const { closePgDatabase, openPgDatabase } = await import("@/db/pg/client");
  const pg = await openPgDatabase(url, { migrate: false, max: 1, applicationName: "proofgate query" });
  try {
    return await queryPostgres(pg.$client, sql, timeoutMs);
  } finally {
    await closePgDatabase(pg);
  }
}

/** `query` (read-only SQL on the local file) and `dashboard-snapshot`. */
export function queryCommands(program: Command, out: Output): void {
  example(
    program
      .command("query")
      .description(
        "Run one read-only SELECT on the local ledger (a SQLite file, or PostgreSQL in a read-only transaction) and print the rows as JSON (local mode only)",
      )
      .argument("<sql>", "a single SELECT (or WITH … SELECT) statement")
      .option("--timeout <ms>", "PostgreSQL: cancel the statement after this many milliseconds", int(1, 3_600_000), QUERY_TIMEOUT_MS),
    "proofgate query \"SELECT key, status, verification FROM tasks WHERE session_id = 'bazinga_20250112_143022'\"",
  ).action(async (sql: string, options: { timeout: number }, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    if (!namesLocalLedger(globals) && (globals.url ?? process.env.PROOFGATE_URL))
      throw new UsageError("query: runs in local mode only (--db or PROOFGATE_DB, --database-url or PROOFGATE_DATABASE_URL); the server does not run SQL");
    assertLooksLikeSelect(sql);
    const target = await ledgerTarget(globals);
    if (isPostgresTarget(target)) {
      const rows = await queryPostgresLedger(target, sql, options.timeout);
      out.result(rows, pretty(rows));
      return;
    }
    const { openDatabase } = await import("@/db/client");
    // A separate read-only connection: even a statement that slipped past the checks cannot write.
    const db = openDatabase(target, { readonly: true });
    try {
      const rows = allRows(prepareSelect(db.$client, sql));
      out.result(rows, pretty(rows));
    } finally {
      db.$client.close();
    }
  });

  example(
    program
      .command("integrity-check")
      .description("Run SQLite's integrity check on the local database file: {ok, details}, exit 1 when it finds a problem (local mode only)"),
    "proofgate integrity-check",
  ).action(async (_options: unknown, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    if (!namesLocalLedger(globals) && (globals.url ?? process.env.PROOFGATE_URL))
      throw new UsageError("integrity-check: runs in local mode only (--db or PROOFGATE_DB)");
    const file = await sqliteLedgerFile(globals, "integrity-check", "PostgreSQL checks its own pages (data checksums, amcheck)");
    const { openDatabase } = await import("@/db/client");
    const db = openDatabase(file, { readonly: true });
    try {
      const found = (db.$client.pragma("integrity_check") as { integrity_check: string }[]).map((r) => r.integrity_check);
      const ok = found.length === 1 && found[0] === "ok";
      const result = { ok, details: ok ? "Database integrity check passed" : `Integrity issues found: ${found.join("; ")}` };
      out.result(result, pretty(result));
      if (!ok) throw new CheckFailed("database.integrity", result.details);
    } finally {
      db.$client.close();
    }
  });

  example(
    program
      .command("dashboard-snapshot")
      .description("A session in one JSON document: the session, its task groups, criteria, latest completion check and token summary")
      .argument("<session>", "session id", sessionArg),
    "proofgate dashboard-snapshot bazinga_20250112_143022",
  ).action(
    act(out, (sessionId: string) => async (api) => {
      const session = await api.query<SessionRow>("session.get", { id: sessionId });
      const tasks = await api.query<TaskRow[]>("task.list", { sessionId });
      const criteria = await api.query<CriterionRow[]>("criteria.list", { sessionId });
      const checks = await api.query<CompletionCheckRow[]>("completion.list", { sessionId, limit: 1 });
      const tokens = await api.query<TokenSummary>("log.tokenSummary", { sessionId });
      return read({
        session: sessionView(session),
        task_groups: tasks.map(taskGroupView),
        success_criteria: criteria.map(snakeKeys),
        latest_completion_check: checks[0] ? snakeKeys(checks[0]) : null,
        token_summary: bazingaTokenSummary(tokens),
      });
    }),
  );
}
