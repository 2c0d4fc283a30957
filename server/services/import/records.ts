import type Database from "better-sqlite3";
import { and, eq, inArray, notInArray, sql } from "drizzle-orm";
import { type Db, engineOf } from "@/db/client";
import { queryAll, queryGet, queryRun } from "@/db/query";
import { type ImportSource, importRecords } from "@/db/schema";

export interface ImportRecord {
  targetId: string | null;
  sessionId: string | null;
  /** The mapped source values last applied (JSON), for rows the source changes in place. */
  state: string | null;
}

const keyOf = (entity: string, sourceKey: string) => `${entity}\u0000${sourceKey}`;

/**
 * The import records of one source, held in memory for the run and written beside each row it
 * imports (in the same transaction), so what is recorded is exactly what was written.
 */
export class RecordBook {
  private readonly records = new Map<string, ImportRecord>();
  /** What `put` replaced since the last `commit`, so a rolled-back write is forgotten too. */
  private readonly undo: [string, ImportRecord | undefined][] = [];

  /** SQLite: the statements, prepared once (a large import writes one record per row). PostgreSQL: null, Drizzle through the handle. */
  private readonly statements: Statements | null;
  private readonly lazy: ReadonlySet<string> | "all";
  /** Where lookups between rows run (the import writer's open batch: `ImportWriter.read`). */
  private reader: Reader = (work) => work();

  private constructor(
    private readonly db: Db,
    readonly source: ImportSource,
    lazy: ReadonlySet<string> | "all",
  ) {
    this.lazy = lazy;
    this.statements = engineOf(db) === "sqlite" ? prepare(db.$client) : null;
  }

  /**
   * The book of `source`'s records, those not `lazy` read into memory.
   * @param lazy entities whose records are not held in memory but looked up by the unique index when
   *   asked (a BAZINGA history holds a million logs and a few hundred thousand other rows), or "all".
   */
  static async open(db: Db, source: ImportSource, lazy: readonly string[] | "all" = []): Promise<RecordBook> {
    const book = new RecordBook(db, source, lazy === "all" ? "all" : new Set(lazy));
    if (lazy !== "all") await book.load(db, lazy);
    return book;
  }

  /**
   * A book that holds nothing in memory: every record is looked up by the unique index when asked
   * (`open(db, source, "all")` without the wait, since there is nothing to read first).
   */
  static indexOnly(db: Db, source: ImportSource): RecordBook {
    return new RecordBook(db, source, "all");
  }

  private async load(db: Db, lazy: readonly string[]): Promise<void> {
    const rows = await queryAll(
      db
        .select({
          entity: importRecords.entity,
          sourceKey: importRecords.sourceKey,
          targetId: importRecords.targetId,
          sessionId: importRecords.sessionId,
          state: importRecords.state,
        })
        .from(importRecords)
        .where(and(eq(importRecords.source, this.source), notInArray(importRecords.entity, [...lazy]))),
    );
    for (const row of rows) this.records.set(keyOf(row.entity, row.sourceKey), { targetId: row.targetId, sessionId: row.sessionId, state: row.state });
  }

  /** Look lazy records up through `reader` (the import writer: so they see what its open batch holds). */
  readThrough(reader: Reader): void {
    this.reader = reader;
  }

  async get(entity: string, sourceKey: string): Promise<ImportRecord | undefined> {
    if (!this.isLazy(entity)) return this.records.get(keyOf(entity, sourceKey));
    if (this.statements) {
      const row = this.statements.find.get(this.source, entity, sourceKey) as StoredRecord | undefined;
      return row && { targetId: row.target_id, sessionId: row.session_id, state: row.state };
    }
    const t = importRecords;
    const row = await this.reader(() =>
      queryGet(
        this.db
          .select({ targetId: t.targetId, sessionId: t.sessionId, state: t.state })
          .from(t)
          .where(and(eq(t.source, this.source), eq(t.entity, entity), eq(t.sourceKey, sourceKey))),
      ),
    );
    return row ?? undefined;
  }

  /**
   * Which of `sourceKeys` (of one entity) have a record: the lookups of a chunk of append-only rows
   * in one statement per 1,000 keys on PostgreSQL (one round trip each), the prepared lookup per key on SQLite.
   */
  async recorded(entity: string, sourceKeys: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (this.statements || !this.isLazy(entity)) {
      for (const key of sourceKeys) if (await this.get(entity, key)) found.add(key);
      return found;
    }
    const t = importRecords;
    for (let start = 0; start < sourceKeys.length; start += KEYS_PER_LOOKUP) {
      const keys = sourceKeys.slice(start, start + KEYS_PER_LOOKUP);
      const rows = await this.reader(() =>
        queryAll(
          this.db
            .select({ sourceKey: t.sourceKey })
            .from(t)
            .where(and(eq(t.source, this.source), eq(t.entity, entity), inArray(t.sourceKey, keys))),
        ),
      );
      for (const row of rows) found.add(row.sourceKey);
    }
    return found;
  }

  /**
   * `put` for many rows written together (a log batch): on PostgreSQL one multi-row upsert per
   * 500 lazy records instead of a round trip each; on SQLite each through its prepared statement.
   */
  async putMany(entries: readonly RecordEntry[]): Promise<void> {
    const lazy = this.statements ? [] : entries.filter((entry) => this.isLazy(entry.entity));
    for (const entry of this.statements ? entries : entries.filter((e) => !this.isLazy(e.entity)))
      await this.put(entry.entity, entry.sourceKey, entry.record, entry.at);
    for (let start = 0; start < lazy.length; start += PG_RECORDS_PER_UPSERT)
      await this.upsertOnPg(lazy.slice(start, start + PG_RECORDS_PER_UPSERT).map((entry) => ({ ...entry, value: valueOf(entry.record) })));
  }

  /** Record (or re-record) a source row as imported, with the values applied. Call inside the write's transaction. */
  async put(
    entity: string,
    sourceKey: string,
    record: { targetId: string | number | null; sessionId: string | null; state?: unknown },
    at: Date,
  ): Promise<void> {
    const value = valueOf(record);
    const statements = this.statements;
    if (this.isLazy(entity)) {
      // Not held in memory: the row written (or rolled back with its transaction) is the record.
      if (statements) statements.upsert.run(this.source, entity, sourceKey, value.targetId, value.sessionId, value.state, at.getTime(), at.getTime());
      else await this.upsertOnPg([{ entity, sourceKey, value, at }]);
      return;
    }
    const existing = this.records.get(keyOf(entity, sourceKey));
    this.undo.push([keyOf(entity, sourceKey), existing]);
    if (!statements) await this.upsertOnPg([{ entity, sourceKey, value, at }]);
    else if (existing) statements.update.run(value.targetId, value.sessionId, value.state, at.getTime(), this.source, entity, sourceKey);
    else statements.insert.run(this.source, entity, sourceKey, value.targetId, value.sessionId, value.state, at.getTime(), at.getTime());
    this.records.set(keyOf(entity, sourceKey), value);
  }

  /** PostgreSQL: write (or re-write) these records in one statement. */
  private async upsertOnPg(rows: readonly { entity: string; sourceKey: string; value: ImportRecord; at: Date }[]): Promise<void> {
    const t = importRecords;
    await queryRun(
      this.db
        .insert(t)
        .values(rows.map(({ entity, sourceKey, value, at }) => ({ source: this.source, entity, sourceKey, ...value, importedAt: at, updatedAt: at })))
        .onConflictDoUpdate({
          target: [t.source, t.entity, t.sourceKey],
          set: { targetId: sql`excluded.target_id`, sessionId: sql`excluded.session_id`, state: sql`excluded.state`, updatedAt: sql`excluded.updated_at` },
        }),
    );
  }

  private isLazy(entity: string): boolean {
    return this.lazy === "all" || this.lazy.has(entity);
  }

  /** A point to roll back to. */
  mark(): number {
    return this.undo.length;
  }

  /** Forget what was put after `mark` (its rows went with a rolled-back transaction). */
  rollbackTo(mark: number): void {
    while (this.undo.length > mark) {
      const [key, previous] = this.undo.pop()!;
      if (previous) this.records.set(key, previous);
      else this.records.delete(key);
    }
  }

  /** The transaction holding the puts committed: nothing left to undo. */
  commit(): void {
    this.undo.length = 0;
  }
}

/** Keys per lookup statement on PostgreSQL (bound parameters: far below its 65,535). */
const KEYS_PER_LOOKUP = 1000;
/** Records per multi-row upsert on PostgreSQL (8 parameters each). */
const PG_RECORDS_PER_UPSERT = 500;

export interface RecordEntry {
  entity: string;
  sourceKey: string;
  record: { targetId: string | number | null; sessionId: string | null; state?: unknown };
  at: Date;
}

function valueOf(record: RecordEntry["record"]): ImportRecord {
  return {
    targetId: record.targetId === null ? null : String(record.targetId),
    sessionId: record.sessionId,
    state: record.state === undefined ? null : JSON.stringify(record.state),
  };
}

type Reader = <T>(work: () => Promise<T>) => T | Promise<T>;

interface StoredRecord {
  target_id: string | null;
  session_id: string | null;
  state: string | null;
}

interface Statements {
  insert: Database.Statement;
  update: Database.Statement;
  upsert: Database.Statement;
  find: Database.Statement;
}

function prepare(sqlite: Database.Database): Statements {
  return {
    insert: sqlite.prepare(
      "INSERT INTO import_records (source, entity, source_key, target_id, session_id, state, imported_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    update: sqlite.prepare(
      "UPDATE import_records SET target_id = ?, session_id = ?, state = ?, updated_at = ? WHERE source = ? AND entity = ? AND source_key = ?",
    ),
    upsert: sqlite.prepare(
      `INSERT INTO import_records (source, entity, source_key, target_id, session_id, state, imported_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (source, entity, source_key) DO UPDATE SET target_id = excluded.target_id, session_id = excluded.session_id, state = excluded.state, updated_at = excluded.updated_at`,
    ),
    find: sqlite.prepare("SELECT target_id, session_id, state FROM import_records WHERE source = ? AND entity = ? AND source_key = ?"),
  };
}

/** Stable JSON of a row's mapped values, for comparing with what was last applied. */
export function stateOf(values: unknown): string {
  return JSON.stringify(values);
}
