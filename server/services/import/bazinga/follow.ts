import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "@/db/client";
import { DomainError } from "@/server/domain/errors";
import type { ProgressListener } from "../../progress";
import { type ImportReport, Tally, mergeEntities } from "../report";
import { BAZINGA_ENTITIES, BazingaImporter } from "./importer";

export interface FollowOptions {
  /** Stops the follower (SIGINT/SIGTERM): it finishes the row it is writing and returns. */
  signal: AbortSignal;
  /** How often to look at the file (default 500 ms; changes show within about twice that). */
  intervalMs?: number;
  /** After the first import, and after every later sync that wrote something. */
  onPass?: (report: ImportReport) => void;
  /** The file went missing, was replaced, or was locked: what the follower is doing about it. */
  onNotice?: (message: string) => void;
  /** Progress of each pass's rows (the first pass of a large file takes a while). */
  onProgress?: ProgressListener;
  /** The follower's clock in milliseconds (default `performance.now`): what a pass cost is read off it. */
  clock?: () => number;
}

/** A pass over the state tables costs at most 1/STATE_SHARE of the follower's time. */
const STATE_SHARE = 5;

/** SQLite's answers while another process holds a lock or swaps the file: wait and look again. */
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|PROTOCOL|IOERR|CANTOPEN|NOTADB|CORRUPT|SCHEMA)/;

function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && TRANSIENT.test(code)) return true;
  // Missing, or (half-copied) not a BAZINGA database yet: a file being replaced looks like this.
  return error instanceof DomainError && (error.rule === "import.source_missing" || error.rule === "import.not_bazinga" || error.rule === "import.not_sqlite");
}

/**
 * Import a BAZINGA database and keep following it: every `intervalMs` it asks SQLite whether
 * anything was committed (`PRAGMA data_version` on its read-only connection) and whether the
 * file was replaced (its inode), and imports what is new. BAZINGA keeps writing as it always
 * does: reads are short read transactions, a lock or a half-written replacement is waited out, a
 * replaced file is reopened, a new session is picked up like any other row.
 * @returns the totals over the whole run, once stopped.
 */
export async function followBazinga(db: Db, file: string, options: FollowOptions): Promise<ImportReport> {
  const now = options.clock ?? (() => performance.now());
  const started = now();
  const importer = new BazingaImporter(db, file);
  const total = new Tally(BAZINGA_ENTITIES);
  const notice = options.onNotice ?? (() => undefined);
  // A pass over the state tables (sessions, task groups, criteria…) costs time in proportion to the
  // whole history; the append-only tables only what is new. On a large file the follower drains the
  // append-only tables on every change and reads the state tables again once a pass over them has
  // cost at most a fifth of the time since the last one (on a small file: every pass). What a pass
  // costs is learnt from the passes after the first: the first imports the whole history, append-only
  // tables included, and would hold a state change back for five times that (a new session that only
  // touches the state tables, minutes after a large import).
  let stateEndedAt = 0;
  let stateMs = 0;
  let statePending = false;
  const stateDue = () => now() - stateEndedAt >= STATE_SHARE * stateMs;
  const sync = async (full: boolean, first = false) => {
    const passStarted = now();
    const tally = await importer.sync({ appendOnly: !full, onProgress: options.onProgress });
    if (full) {
      stateEndedAt = now();
      stateMs = first ? 0 : stateEndedAt - passStarted;
    }
    statePending = !full;
    mergeEntities(total, tally.entities());
    return { tally, report: importer.report(tally, Math.round(now() - passStarted)) };
  };
  try {
    importer.open();
    options.onPass?.((await sync(true, true)).report);
    let waiting: string | null = null;
    const wait = (message: string) => {
      if (waiting !== message) notice(message);
      waiting = message;
    };
    while (!options.signal.aborted) {
      await sleep(options.intervalMs ?? 500, undefined, { signal: options.signal }).catch(() => undefined);
      if (options.signal.aborted) break;
      try {
        const change = importer.poll();
        if (change === "missing") {
          wait(`${file} is missing: waiting for it to come back`);
          continue;
        }
        // Unchanged, but a state change may wait behind the last append-only pass: read the state tables once due.
        if (change === "unchanged" && !(statePending && stateDue())) continue;
        let full = true;
        if (change === "replaced" || change === "closed") {
          importer.open();
          notice(change === "replaced" ? `${file} was replaced: reopened it` : `${file} is readable again`);
        } else full = stateDue() || !(await importer.appendOnlyIsEnough());
        waiting = null;
        const { tally, report } = await sync(full);
        if (tally.changed() || tally.entities().some((e) => e.skipped > 0)) options.onPass?.(report);
      } catch (error) {
        if (!isTransient(error)) throw error;
        // Locked: keep the connection and look again. Anything else: reopen the file next time.
        if (/^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown }).code))) importer.retryNextPoll();
        else importer.close();
        wait(`${file} is not readable right now (${error instanceof Error ? error.message : String(error)}): trying again`);
      }
    }
  } finally {
    importer.close();
  }
  return importer.info
    ? importer.report(total, Math.round(now() - started))
    : {
        source: "bazinga",
        file,
        schema: { version: "unknown", detectedFrom: "never opened", notes: [] },
        entities: total.entities(),
        notMapped: [],
        milliseconds: 0,
      };
}
