import type Database from "better-sqlite3";
import type { Db } from "@/db/client";
import { type ProgressListener, noProgress } from "../progress";
import { checkCompletions } from "./completions";
import { checkCriteria } from "./criteria";
import { checkRollups, checkSearchIndex, checkStorage } from "./database";
import { checkEvents } from "./events";
import { type CheckReport, FindingCollector } from "./findings";
import { checkTasks } from "./tasks";

export interface CheckOptions {
  /** Findings listed per invariant (all are counted). */
  limit?: number;
  /** Called as each check is done ("checking", in checks): storage first, then the ledger's invariants. */
  onProgress?: ProgressListener;
}

const CHECKS: readonly [string, (sqlite: Database.Database, found: FindingCollector) => void][] = [
  ["tasks", checkTasks],
  ["criteria", checkCriteria],
  ["completions", checkCompletions],
  ["events", checkEvents],
  ["rollups", checkRollups],
  ["search index", checkSearchIndex],
];

/**
 * Check the ledger's invariants over the whole database, read-only: storage integrity and foreign
 * keys, every verified or completed task verified by a non-claimant (or flagged unverified), every
 * task's and criterion's current state explained by its history, every completed session resting
 * on a fresh completion check (accepted, in an enforce session), every domain row's event, and
 * the per-session counters and search index. The ledger checks share one read transaction, a consistent snapshot
 * even while writers run. A check that cannot read a damaged file is a finding, not a crash.
 */
export function checkLedger(db: Db, options: CheckOptions = {}): CheckReport {
  const started = performance.now();
  const sqlite = db.$client;
  const found = new FindingCollector(options.limit ?? 50);
  const report = options.onProgress ?? noProgress;
  const total = CHECKS.length + 1;
  report({ phase: "checking", done: 0, total, unit: "checks" });
  checkStorage(sqlite, found);
  report({ phase: "checking", done: 1, total, unit: "checks" });
  sqlite
    .transaction(() => {
      for (const [i, [name, check]] of CHECKS.entries()) {
        try {
          check(sqlite, found);
        } catch (error) {
          found.add("database.integrity", {}, `the ${name} check could not read the database: ${error instanceof Error ? error.message : String(error)}`);
        }
        report({ phase: "checking", done: i + 2, total, unit: "checks" });
      }
    })
    .deferred();
  return {
    ok: found.total() === 0,
    checked: found.checked,
    counts: found.counts,
    findings: found.findings,
    milliseconds: Math.round(performance.now() - started),
  };
}
