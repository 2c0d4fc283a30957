import type { Db } from "@/db/client";
import type { Actor } from "@/server/domain/actors";
import type { ServiceContext } from "../context";
import type { ProgressListener } from "../progress";
import type { RecordBook } from "./records";
import type { Tally } from "./report";
import { reasonOf } from "./values";
import type { ImportWriter } from "./writer";

/** What every mapping step of one import pass shares. */
export interface ImportRun {
  db: Db;
  book: RecordBook;
  writer: ImportWriter;
  tally: Tally;
  actor: Actor;
  /** When the run started: the time of rows whose source gives none. */
  startedAt: Date;
}

/** The services' context, with the clock set to when the source says it happened. */
export function at(run: ImportRun, time: Date, actor: Actor = run.actor): ServiceContext {
  return { db: run.db, actor, now: () => time };
}

/** `unchanged`: the row was already in Proofgate (e.g. an event saved under the same idempotency key); it is linked, not copied. */
export type Outcome = "imported" | "updated" | "unchanged";

/**
 * Write one source row (its services' writes and its import record) as one unit: counted as
 * imported or updated when it stands, skipped with the refusal's own words when it does not.
 */
export async function apply(run: ImportRun, entity: string, key: string, work: () => Promise<Outcome>): Promise<boolean> {
  try {
    run.tally.count(entity, await run.writer.row(work));
    return true;
  } catch (error) {
    run.tally.skip(entity, key, reasonOf(error));
    return false;
  }
}

/** Work through a source table's rows one after another, reporting each one done (phase = the table, unit "rows"). */
export async function eachRow<T>(progress: ProgressListener, phase: string, items: Iterable<T>, work: (item: T) => void | Promise<void>): Promise<void> {
  const list = [...items];
  progress({ phase, done: 0, total: list.length, unit: "rows" });
  for (const [i, item] of list.entries()) {
    await work(item);
    progress({ phase, done: i + 1, total: list.length, unit: "rows" });
  }
}
