import type { BatchRow } from "../../log/schemas";
import { parseInput } from "../../parse-input";
import { BatchRow as BatchRowSchema } from "../../log/schemas";
import { importTimedLogBatch } from "../log-batch";
import { type ImportRun, at } from "../run";
import { int, reasonOf, text } from "../values";
import type { Row } from "./read";

/** Rows per write: large enough to be fast, small enough that other writers wait only milliseconds. */
const BATCH = 500;

/** The import record key of an append-only row (logs, tokens, decisions): `<session>|<id>`. */
export function appendKeyOf(row: Row): string {
  return `${text(row.session_id) ?? ""}|${int(row.id) ?? 0}`;
}

export interface AppendItem {
  entity: string;
  recordKind: string;
  key: string;
  sessionId: string;
  at: Date;
  row: Record<string, unknown>;
}

/**
 * Logs and token rows, the bulk of a BAZINGA history, written a batch at a time through the
 * timed log batch service (one transaction and one event per batch, each row keeping its time).
 * A row that fails its check is skipped alone, with the check's own words, before any write.
 */
export class AppendBatcher {
  private items: (AppendItem & { checked: BatchRow })[] = [];

  constructor(private readonly run: ImportRun) {}

  async add(item: AppendItem): Promise<void> {
    let checked: BatchRow;
    try {
      checked = parseInput(BatchRowSchema, item.row, "log.invalid_input");
    } catch (error) {
      this.run.tally.skip(item.entity, item.key, reasonOf(error));
      return;
    }
    if (this.items.length > 0 && (this.items[0]!.sessionId !== item.sessionId || this.items.length >= BATCH)) await this.flush();
    this.items.push({ ...item, checked });
  }

  /** Write what is pending (call before a row that must be written on its own, and at the end). */
  async flush(): Promise<void> {
    const items = this.items;
    this.items = [];
    if (items.length === 0) return;
    try {
      const result = await this.run.writer.row(async () => {
        const saved = await importTimedLogBatch(at(this.run, items.at(-1)!.at), {
          sessionId: items[0]!.sessionId,
          rows: items.map((i) => ({ at: i.at, checked: i.checked })),
        });
        await this.run.book.putMany(
          saved.ids.map((id, n) => ({
            entity: items[n]!.recordKind,
            sourceKey: items[n]!.key,
            record: { targetId: id.id, sessionId: items[n]!.sessionId },
            at: items[n]!.at,
          })),
        );
        return saved;
      });
      result.ids.forEach((id, n) => this.run.tally.count(items[n]!.entity, id.created ? "imported" : "unchanged"));
    } catch (error) {
      // Refused as a whole (a rule the row checks do not see): each row on its own, so only the bad one is skipped.
      if (items.length === 1) this.run.tally.skip(items[0]!.entity, items[0]!.key, reasonOf(error));
      else for (const item of items) await this.flushOne(item);
    }
  }

  private async flushOne(item: AppendItem & { checked: BatchRow }): Promise<void> {
    this.items = [item];
    await this.flush();
  }
}
