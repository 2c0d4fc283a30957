import { type Db, type DbOrTx, readTransaction } from "@/db/client";
import { type ProgressListener, noProgress } from "../progress";
import { checkCompletions } from "./completions";
import { checkCriteria } from "./criteria";
import { checkRollups, checkSearchIndex } from "./database";
import { checkEvents } from "./events";
import { type CheckReport, FindingCollector } from "./findings";
import { guarded } from "./guarded";
import { checkStorage } from "./storage";
import { checkTasks } from "./tasks";

export interface CheckOptions {
  /** Findings listed per invariant (all are counted). */
  limit?: number;
  /** Called as each check is done ("checking", in checks): storage first, then the ledger's invariants. */
  onProgress?: ProgressListener;
}

const CHECKS: readonly [string, (db: DbOrTx, found: FindingCollector) => Promise<void>][] = [
  ["storage", checkStorage],
  ["tasks", checkTasks],
  ["criteria", checkCriteria],
  ["completions", checkCompletions],
  ["events", checkEvents],
  ["rollups", checkRollups],
  ["search index", checkSearchIndex],
];

/**
 * Check the ledger's invariants over the whole database, read-only, on either engine: storage
 * (SQLite's integrity and foreign key checks; on PostgreSQL the enforcement triggers enabled, the
 * constraints validated, no row pointing at nothing) and the enforcement triggers present, every
 * verified or completed task verified by a non-claimant (or flagged unverified), every task's and
 * criterion's current state explained by its history, every completed session resting on a fresh
 * completion check (accepted, in an enforce session), every domain row's event, and the
 * per-session counters and search index. Every check reads one snapshot (a read transaction;
 * `REPEATABLE READ READ ONLY` on PostgreSQL), consistent even while writers run. A check that
 * cannot read a damaged database is a finding, not a crash.
 */
export async function checkLedger(db: Db, options: CheckOptions = {}): Promise<CheckReport> {
  const started = performance.now();
  const found = new FindingCollector(options.limit ?? 50);
  const report = options.onProgress ?? noProgress;
  const total = CHECKS.length;
  report({ phase: "checking", done: 0, total, unit: "checks" });
  await readTransaction(db, async (tx) => {
    for (const [i, [name, check]] of CHECKS.entries()) {
      await guarded(tx, found, name, () => check(tx, found));
      report({ phase: "checking", done: i + 1, total, unit: "checks" });
    }
  });
  return {
    ok: found.total() === 0,
    checked: found.checked,
    counts: found.counts,
    findings: found.findings,
    milliseconds: Math.round(performance.now() - started),
  };
}
