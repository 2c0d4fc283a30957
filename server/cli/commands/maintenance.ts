import fs from "node:fs";
import readline from "node:readline/promises";
import { type Command, InvalidArgumentError } from "commander";
import type { Db } from "@/db/client";
import type { CheckReport } from "@/server/services/check/findings";
import type { PurgeResult } from "@/server/services/purge/purge";
import { DatabaseMissingError } from "../api";
import { UsageError } from "../errors";
import type { GlobalOptions } from "../options";
import type { Output } from "../output";
import { CheckFailed, example, plural } from "./shared";
import { isPostgresTarget, ledgerTarget, namesLocalLedger } from "../ledger";

/**
 * The operator's ledger, a SQLite file or a PostgreSQL database (`--db`/`--database-url` given, or
 * no server named), opened on the database itself, never through a server; with the name to show
 * (a URL without its password). A file that does not exist, or a PostgreSQL database that cannot be
 * reached or holds no ledger, is "database unavailable" (exit 4).
 */
async function openLocalLedger(globals: GlobalOptions, command: string, options: { readonly?: boolean } = {}): Promise<{ db: Db; shown: string }> {
  if (!namesLocalLedger(globals) && (globals.url ?? process.env.PROOFGATE_URL))
    throw new UsageError(`${command}: runs in local mode only (--db or PROOFGATE_DB, --database-url or PROOFGATE_DATABASE_URL), on the database itself`);
  const target = await ledgerTarget(globals);
  const { closeLedger, openDatabase, openLedger } = await import("@/db/client");
  if (!isPostgresTarget(target)) {
    if (!fs.existsSync(target)) throw new DatabaseMissingError(`database unavailable: no database at ${target}`);
    return { db: openDatabase(target, { readonly: options.readonly }), shown: target };
  }
  const [{ redactUrl }, { pgRootOf }] = await Promise.all([import("@/db/pg/client"), import("@/db/pg/ledger")]);
  const shown = redactUrl(target);
  // Opened as it is: a check or a purge does not migrate the database it looks at.
  const db = await openLedger(target, { migrate: false, poolSize: 2 });
  try {
    // On the pool itself, so that a server that cannot be reached fails with pg's own error (database unavailable, exit 4).
    const { rows } = await pgRootOf(db)!.$client.query<{ sessions: string | null }>("SELECT to_regclass('sessions')::text AS sessions");
    if (!rows[0]?.sessions)
      throw new DatabaseMissingError(`database unavailable: ${shown} holds no Proofgate ledger (create it with proofgate migrate --database-url …)`);
  } catch (error) {
    await closeLedger(db);
    throw error;
  }
  return { db, shown };
}

/** `--before 2026-01-01` (UTC midnight) or a full ISO time. */
export function isoDate(value: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError("must be a date (2026-01-31) or an ISO time (2026-01-31T12:00:00Z)");
  }
  return date;
}

export function checkReportText(file: string, report: CheckReport): string {
  const lines = [
    `${file}: ${
      report.ok
        ? "every invariant holds"
        : `${plural(
            Object.values(report.counts).reduce((a, b) => a + b, 0),
            "finding",
          )}`
    }`,
  ];
  for (const [invariant, n] of Object.entries(report.counts)) {
    lines.push(`  ${n === 0 ? "ok  " : "FAIL"}  ${invariant}${n === 0 ? "" : ` (${n})`}`);
    for (const finding of report.findings.filter((f) => f.invariant === invariant)) lines.push(`          - ${finding.message}`);
    const listed = report.findings.filter((f) => f.invariant === invariant).length;
    if (n > listed) lines.push(`          … and ${n - listed} more (--limit to list more)`);
  }
  lines.push(
    `  checked ${Object.entries(report.checked)
      .map(([what, n]) => `${what} ${n}`)
      .join(", ")} in ${report.milliseconds} ms`,
  );
  return lines.join("\n");
}

function purgeText(result: PurgeResult): string {
  const when = result.before.toISOString();
  if (result.sessions.length === 0) return `no session ended before ${when}: nothing to purge`;
  const rows = Object.entries(result.rows)
    .filter(([, n]) => n > 0)
    .map(([table, n]) => `${table} ${n}`)
    .join(", ");
  const head = result.dryRun
    ? `would purge ${plural(result.sessions.length, "session")} ended before ${when}`
    : `purged ${plural(result.sessions.length, "session")} ended before ${when} (purge #${String(result.purgeId)})`;
  return `${head}: ${result.sessions.join(", ")}\n  rows: ${rows}`;
}

async function confirm(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^(y|yes)$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Operator tools on the ledger file: `check` (the invariants) and `purge` (retention). */
export function maintenanceCommands(program: Command, out: Output): void {
  example(
    program
      .command("check")
      .description(
        "Check the ledger's invariants on a SQLite file or a PostgreSQL database: integrity, foreign keys, enforcement triggers, verification by non-claimants, history, events, counters (exit 1 when any is broken)",
      )
      .option(
        "--limit <n>",
        "findings listed per invariant (all are counted)",
        (v: string) => {
          const n = Number(v);
          if (!/^\d+$/.test(v) || n < 1 || n > 100_000) throw new InvalidArgumentError("must be an integer from 1 to 100000");
          return n;
        },
        20,
      ),
    "proofgate check --db ./data/proofgate.db",
    "proofgate check --db ./backups/proofgate-2026-11-21.db --json",
    "proofgate check --database-url postgres://proofgate@db.internal/proofgate",
  ).action(async (options: { limit: number }, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const [{ closeLedger }, { checkLedger }, { createProgressDisplay }] = await Promise.all([
      import("@/db/client"),
      import("@/server/services/check/run"),
      import("../progress"),
    ]);
    const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "check" });
    const { db, shown } = await openLocalLedger(globals, "check", { readonly: true });
    try {
      const report = await checkLedger(db, { limit: options.limit, onProgress: progress.listener });
      progress.stop();
      out.result({ database: shown, ...report }, checkReportText(shown, report));
      if (!report.ok)
        throw new CheckFailed(
          "check.failed",
          `${shown}: ${Object.entries(report.counts)
            .filter(([, n]) => n > 0)
            .map(([i, n]) => `${i} ${n}`)
            .join(", ")}`,
        );
    } finally {
      progress.stop();
      await closeLedger(db);
    }
  });

  example(
    program
      .command("purge")
      .description("Remove sessions that ended before DATE and everything under them, recorded as a purge (never an active session)")
      .requiredOption("--before <date>", "purge sessions that ended before this date or time (UTC)", isoDate)
      .option("--dry-run", "show what would be removed, change nothing")
      .option("--yes", "do not ask for confirmation")
      .option("--reason <text>", "why (kept in the purge record)"),
    "proofgate purge --db ./data/proofgate.db --before 2026-01-01 --dry-run",
    "proofgate purge --db ./data/proofgate.db --before 2026-01-01 --yes",
    "proofgate purge --database-url postgres://proofgate@db.internal/proofgate --before 2026-01-01 --dry-run",
  ).action(async (options: { before: Date; dryRun?: boolean; yes?: boolean; reason?: string }, command: Command) => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    if (!options.yes && !options.dryRun && !process.stdin.isTTY)
      throw new UsageError("--yes: purge asks for confirmation; pass --yes when not at a terminal (or --dry-run to see what it would remove)");
    const [{ closeLedger }, { purgeSessions }, { operatorActor }, { createProgressDisplay }] = await Promise.all([
      import("@/db/client"),
      import("@/server/services/purge/purge"),
      import("@/server/domain/actors"),
      import("../progress"),
    ]);
    const progress = createProgressDisplay({ quiet: globals.quiet, json: globals.json, label: "purge" });
    const { db } = await openLocalLedger(globals, "purge");
    try {
      const ctx = { db, actor: operatorActor(globals.agentId ?? "operator") };
      const input = { before: options.before, ...(options.reason ? { reason: options.reason } : {}) };
      const preview = await purgeSessions(ctx, { ...input, dryRun: true });
      if (options.dryRun || preview.sessions.length === 0) {
        out.result(preview, purgeText(preview));
        return;
      }
      if (!options.yes && !(await confirm(`${purgeText(preview)}\nPurge ${plural(preview.sessions.length, "session")} and these rows for good? [y/N] `))) {
        throw new UsageError("purge: not confirmed; nothing was removed");
      }
      const result = await purgeSessions(ctx, { ...input, dryRun: false }, { onProgress: progress.listener });
      progress.stop();
      out.result(result, purgeText(result));
    } finally {
      progress.stop();
      await closeLedger(db);
    }
  });
}
