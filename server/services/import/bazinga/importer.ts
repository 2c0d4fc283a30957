import type Database from "better-sqlite3";
import { type Db, withConnection } from "@/db/client";
import { type Actor, operatorActor } from "@/server/domain/actors";
import { type ProgressListener, noProgress } from "../../progress";
import { RecordBook } from "../records";
import { type ImportReport, Tally } from "../report";
import type { ImportRun } from "../run";
import { type SourceIdentity, SourceSchema, identityOf, openSource, readSnapshot } from "../source";
import { int, text } from "../values";
import { ImportWriter } from "../writer";
import { AppendBatcher } from "./append";
import { importConfig } from "./config";
import { importContext } from "./context";
import { criteriaInTable, importCriteria, importMigratedCriteria } from "./criteria";
import { importLearning } from "./learning";
import { importLogs } from "./logs";
import {
  APPEND_CHUNK,
  APPEND_TABLES,
  type AppendTable,
  type BazingaState,
  type Marks,
  NO_ROWS,
  type Paged,
  type Row,
  countAfter,
  readAppendChunk,
  readAppendRow,
  readBazingaState,
  readData,
  readSessions,
} from "./read";
import { type BazingaSchemaInfo, detectBazinga } from "./schema";
import { SessionGate, importSessionStatuses, importSessions } from "./sessions";
import { importTaskGroups } from "./tasks";
import { fingerprint, importDecisions, importPlans, importTokens, importVersioned } from "./telemetry";

/** The order entities are listed in a summary. */
export const BAZINGA_ENTITIES = [
  "sessions",
  "task groups",
  "success criteria",
  "migrated criteria",
  "interactions",
  "reasoning",
  "events",
  "completion claims",
  "token usage",
  "state snapshots",
  "skill outputs",
  "decisions",
  "development plans",
  "context packages",
  "context consumers",
  "error patterns",
  "strategies",
  "consumption scope",
  "workflow transitions",
  "agent markers",
  "special rules",
  "configuration",
  "model config",
] as const;

/** The label imported rows are recorded under (the principal is the local operator). */
export const BAZINGA_ACTOR = "bazinga";

export interface SyncOptions {
  /** Called as rows are done: phase = the source table, unit "rows", total from a count when cheap. */
  onProgress?: ProgressListener;
  /** Rows of an append-only table read and written per chunk (default APPEND_CHUNK; tests use a few). */
  chunkRows?: number;
  /**
   * Only drain the append-only tables (a follower between its passes over the state tables): call
   * it only when `appendOnlyIsEnough()` says so.
   */
  appendOnly?: boolean;
}

/** Import records of this entity hold each append-only table's high-water mark (`RecordedMark`). */
const MARK = "high_water_mark";
interface RecordedMark {
  id: number;
  sessionId: string | null;
  timestamp: string;
}

/** Rows of a state table written between two progress reports. */
const SLICE = 500;

/** An append-only sync reads none of the state tables. */
const NO_STATE: BazingaState = {
  sessions: NO_ROWS,
  taskGroups: NO_ROWS,
  criteria: NO_ROWS,
  pmStates: [],
  states: NO_ROWS,
  skillOutputs: NO_ROWS,
  plans: [],
  packages: [],
  consumers: [],
  errorPatterns: [],
  strategies: [],
  consumption: [],
  config: { transitions: [], markers: [], rules: [], configuration: [], models: [] },
};

const noMarks = (): Marks => ({ orchestration_logs: 0, token_usage: 0, decisions: 0 });

const skippedIn = (tally: Tally) => tally.entities().reduce((sum, e) => sum + e.skipped, 0);

/** `closed`: the connection was dropped after a failed read and must be opened again. */
export type SourceChange = "unchanged" | "changed" | "replaced" | "missing" | "closed";

/**
 * Imports a BAZINGA database into Proofgate: `open` checks the file and its schema version, `sync`
 * brings in whatever is new or changed since the last sync (or since any earlier import: the
 * import records say what is already in). A follower calls `poll` and `sync` again and again.
 */
export class BazingaImporter {
  private source: Database.Database | null = null;
  /** Holds the state tables' snapshot during a sync (see sync). */
  private stateSource: Database.Database | null = null;
  private identity: SourceIdentity | null = null;
  private dataVersion: number | null = null;
  private marks: Marks = noMarks();
  /** How far each table is imported with nothing skipped on the way (what `recordMarks` writes). */
  private recordable: Marks = noMarks();
  /** Whether no row was skipped in this table since the recorded mark. */
  private clean: Record<AppendTable, boolean> = { orchestration_logs: true, token_usage: true, decisions: true };
  private marksChecked = false;
  private readonly book: RecordBook;
  private readonly writer: ImportWriter;
  private readonly actor: Actor;
  info: BazingaSchemaInfo | null = null;

  constructor(
    private readonly db: Db,
    readonly file: string,
  ) {
    // A record per source row (a million logs, hundreds of thousands of others): each looked up by
    // the index when needed, none held in memory, so memory does not grow with the history.
    this.book = RecordBook.indexOnly(db, "bazinga");
    this.writer = new ImportWriter(db, this.book);
    this.actor = operatorActor(BAZINGA_ACTOR);
  }

  /** Open the file read-only and detect its version. Throws for a missing file or one that is not BAZINGA's. */
  open(): BazingaSchemaInfo {
    this.close();
    const source = openSource(this.file, "a BAZINGA database");
    try {
      this.info = detectBazinga(source, new SourceSchema(source), this.file);
    } catch (error) {
      source.close();
      throw error;
    }
    this.source = source;
    const identity = identityOf(this.file);
    // A replaced file is another database: its ids start over, so read it from the start (the records dedupe).
    if (!identity || !this.identity || identity.ino !== this.identity.ino || identity.dev !== this.identity.dev) {
      this.marks = noMarks();
      this.recordable = noMarks();
      this.clean = { orchestration_logs: true, token_usage: true, decisions: true };
      this.marksChecked = false;
    }
    this.identity = identity;
    this.dataVersion = null;
    return this.info;
  }

  /** Whether the file changed since the last sync: `PRAGMA data_version` and the file's inode, nothing heavier. */
  poll(): SourceChange {
    const identity = identityOf(this.file);
    if (!identity) return "missing";
    if (!this.identity || identity.ino !== this.identity.ino || identity.dev !== this.identity.dev) return "replaced";
    if (!this.source) return "closed";
    return this.source.pragma("data_version", { simple: true }) === this.dataVersion ? "unchanged" : "changed";
  }

  /** A sync failed half-way (the file was locked): the next poll syncs again whatever data_version says. */
  retryNextPoll(): void {
    this.dataVersion = null;
  }

  /**
   * Import what is new or changed; nothing waits on BAZINGA's writers (WAL readers). The state
   * tables (sessions, task groups, criteria…) are paged from one read snapshot held for the pass;
   * the append-only tables (logs, tokens, decisions) are streamed in id order a chunk at a time, each
   * chunk its own short read, after the highest id already imported; documents (state data, skill
   * output) are read only for the rows that changed, a few at a time: memory stays bounded whatever
   * the file's size.
   *
   * The pass holds the ledger's connection (`withConnection`) from start to end: its batches are
   * transactions opened by hand, and no other caller in this process may write inside them (nor
   * wait for them: the services the pass calls nest in them as savepoints). A follower lets go of
   * it between passes.
   */
  async sync(options: SyncOptions = {}): Promise<Tally> {
    return withConnection(this.db, () => this.syncHeld(options));
  }

  private async syncHeld(options: SyncOptions): Promise<Tally> {
    const source = this.source;
    if (!source) throw new Error("open the source first");
    const progress = options.onProgress ?? noProgress;
    const chunkRows = options.chunkRows ?? APPEND_CHUNK;
    this.dataVersion = source.pragma("data_version", { simple: true }) as number;
    const schema = new SourceSchema(source);
    const tally = new Tally(BAZINGA_ENTITIES);
    const run: ImportRun = { db: this.db, book: this.book, writer: this.writer, tally, actor: this.actor, startedAt: new Date() };
    const gate = new SessionGate();
    const batcher = new AppendBatcher(run);
    const marksAtStart = { ...this.marks };
    if (!this.marksChecked) await this.adoptRecordedMarks(source, schema);
    const wanted = async (table: "state_snapshots" | "skill_outputs", row: Row) => {
      const record = await this.book.get(table === "state_snapshots" ? "state" : "skill_output", `${text(row.session_id)}|${int(row.id)}`);
      return !record || record.state !== fingerprint(row);
    };
    /** Rows of a table in slices, reporting each slice done. */
    const inSlices = async (phase: string, rows: readonly Row[] | Paged, work: (slice: readonly Row[]) => Promise<void>, size = SLICE) => {
      const list = Array.isArray(rows) ? (rows as readonly Row[]) : null;
      const total = list ? list.length : (rows as Paged).total;
      let done = 0;
      progress({ phase, done, total, unit: "rows" });
      const slices = list
        ? (function* () {
            for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size);
          })()
        : (rows as Paged).pages(size);
      for (const slice of slices) {
        await work(slice);
        done += slice.length;
        progress({ phase, done, total: Math.max(total, done), unit: "rows" });
      }
    };
    // The state tables are paged from a second connection that holds one read transaction for the
    // pass: the one consistent snapshot a single read gave, without the tables in memory. BAZINGA's
    // writers are not held up (WAL); the append-only chunks are read on the first connection.
    const stateSource = options.appendOnly ? null : this.openStateSource();
    try {
      const state = stateSource ? readBazingaState(stateSource, new SourceSchema(stateSource)) : NO_STATE;
      const extraSessions: Row[] = [];
      await inSlices("sessions", state.sessions, async (slice) => importSessions(run, slice, gate));
      await inSlices("task_groups", state.taskGroups, async (slice) => importTaskGroups(run, slice, gate));
      const inTable = new Set<string>();
      await inSlices("success_criteria", state.criteria, async (slice) => {
        await importCriteria(run, slice, gate);
        for (const key of criteriaInTable(slice)) inTable.add(key);
      });
      await inSlices("state_snapshots (pm criteria)", state.pmStates, async (slice) => {
        const data = readData(
          source,
          "state_snapshots",
          slice.map((row) => row.id),
        );
        await importMigratedCriteria(
          run,
          slice.filter((row) => data.get(row.id) !== undefined).map((row) => ({ ...row, state_data: data.get(row.id) })),
          inTable,
          gate,
        );
      });
      // A session created after the state was read, named by a newer row: imported before its rows.
      const sessionsOf = async (rows: readonly Row[]) => {
        const unknown = [...new Set(rows.map((row) => text(row.session_id)).filter((id): id is string => id !== null && !gate.knows(id)))];
        const found = readSessions(source, schema, unknown);
        await importSessions(run, found, gate);
        if (!options.appendOnly) extraSessions.push(...found);
        // Between state passes a session's status is left to the next one (appendOnlyIsEnough saw it imported already).
        else for (const row of found) if (gate.refusal(row.session_id) === null) tally.count("sessions", "unchanged");
      };
      const drain = async (table: AppendTable, importChunk: (rows: readonly Row[], mark: number) => Promise<number>) => {
        const total = countAfter(source, schema, table, this.marks[table]);
        let done = 0;
        progress({ phase: table, done, total, unit: "rows" });
        for (;;) {
          const rows = readAppendChunk(source, schema, table, this.marks[table], chunkRows);
          if (rows.length === 0) break;
          await sessionsOf(rows);
          const skippedBefore = skippedIn(tally);
          this.marks[table] = await importChunk(rows, this.marks[table]);
          await batcher.flush();
          // The recorded mark stops before the first chunk with a skipped row, so a later import tries that row again.
          if (this.clean[table] && skippedIn(tally) === skippedBefore) this.recordable[table] = this.marks[table];
          else this.clean[table] = false;
          done += rows.length;
          progress({ phase: table, done, total: Math.max(total, done), unit: "rows" });
          if (rows.length < chunkRows) break;
        }
      };
      await drain("orchestration_logs", async (rows, mark) => importLogs(run, rows, gate, mark, batcher));
      await drain("token_usage", async (rows, mark) => importTokens(run, rows, gate, mark, batcher));
      await drain("decisions", async (rows, mark) => importDecisions(run, rows, gate, mark));
      for (const table of ["state_snapshots", "skill_outputs"] as const) {
        const entity = table === "state_snapshots" ? "state snapshots" : "skill outputs";
        await inSlices(table, table === "state_snapshots" ? state.states : state.skillOutputs, async (page) => {
          const slice: Row[] = [];
          for (const row of page) if (await wanted(table, row)) slice.push(row);
          run.tally.read(entity, page.length - slice.length);
          for (let i = slice.length; i < page.length; i++) run.tally.count(entity, "unchanged");
          if (slice.length === 0) return;
          const data = readData(
            source,
            table,
            slice.map((row) => row.id),
          );
          const rows = slice.filter((row) => data.get(row.id) !== undefined).map((row) => ({ ...row, data: data.get(row.id) }));
          await importVersioned(run, table, rows, rows.length, gate);
        });
      }
      await inSlices("development_plans", state.plans, async (slice) => importPlans(run, slice, gate));
      progress({ phase: "context_packages", done: 0, total: state.packages.length, unit: "rows" });
      await importContext(run, state.packages, state.consumers, gate);
      progress({ phase: "context_packages", done: state.packages.length, total: state.packages.length, unit: "rows" });
      await importLearning(run, state, gate);
      await importConfig(run, state.config);
      await inSlices("sessions (statuses)", state.sessions, async (slice) => importSessionStatuses(run, slice, gate));
      await importSessionStatuses(run, extraSessions, gate);
      await this.recordMarks(source, schema);
      await this.writer.flush();
    } catch (error) {
      await this.writer.abort();
      // What the aborted batch held is not in: read those rows again next time (the records skip the rest).
      this.marks = marksAtStart;
      this.recordable = { ...marksAtStart };
      throw error;
    } finally {
      if (stateSource?.inTransaction) stateSource.exec("COMMIT");
    }
    return tally;
  }

  /** The second connection, its read transaction begun (and its snapshot taken by a first read). */
  private openStateSource(): Database.Database {
    const db = (this.stateSource ??= openSource(this.file, "a BAZINGA database"));
    if (db.inTransaction) db.exec("ROLLBACK");
    db.exec("BEGIN");
    try {
      db.prepare("SELECT count(*) FROM sqlite_master").get();
    } catch (error) {
      // Locked out (a rollback-journal writer): no snapshot this time; the follower tries again.
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
    return db;
  }

  /**
   * Whether a sync of the append-only tables alone imports the new rows as a whole sync would: every
   * session they name is imported already, and none of them is a completion claim (a claim judges
   * the session's tasks and criteria, which the state tables must bring up to date first).
   * Reads the ledger's import records holding its connection, as a pass does.
   */
  async appendOnlyIsEnough(): Promise<boolean> {
    const source = this.source;
    if (!source || !this.marksChecked) return false;
    const schema = new SourceSchema(source);
    // The source read in one snapshot, then the sessions it names looked up in the ledger.
    const read = readSnapshot(source, () => {
      const sessionIds = new Set<string>();
      for (const table of Object.keys(APPEND_TABLES) as AppendTable[]) {
        if (!schema.hasTable(table)) continue;
        const ids = source.prepare(`SELECT DISTINCT session_id FROM "${table}" WHERE id > ?`).pluck().all(this.marks[table]) as unknown[];
        for (const id of ids) sessionIds.add(String(id));
      }
      if (!schema.hasTable("orchestration_logs")) return { sessionIds, claim: false };
      const claim = source
        .prepare(`SELECT 1 FROM orchestration_logs WHERE id > ? AND log_type = 'event' AND event_subtype IN ('pm_bazinga', 'validator_verdict') LIMIT 1`)
        .get(this.marks.orchestration_logs);
      return { sessionIds, claim: claim !== undefined };
    });
    if (read.claim) return false;
    return withConnection(this.db, async () => {
      for (const id of read.sessionIds) if (!(await this.book.get("session", id))) return false;
      return true;
    });
  }

  /**
   * Start after the high-water marks an earlier import recorded, when they are still this file's:
   * the source row at each mark has the session and time recorded with it (a replaced file whose ids
   * started over does not). Otherwise read from the start: the import records skip what is in.
   */
  private async adoptRecordedMarks(source: Database.Database, schema: SourceSchema): Promise<void> {
    this.marksChecked = true;
    for (const table of Object.keys(APPEND_TABLES) as AppendTable[]) {
      if (this.marks[table] > 0) continue;
      const record = await this.book.get(MARK, table);
      const recorded = record?.state ? (JSON.parse(record.state) as RecordedMark) : null;
      if (!recorded || recorded.id <= 0) continue;
      const row = readAppendRow(source, schema, table, recorded.id);
      if (row && text(row.session_id) === recorded.sessionId && String(row.timestamp ?? "") === recorded.timestamp) {
        this.marks[table] = recorded.id;
        this.recordable[table] = recorded.id;
      }
    }
  }

  /** Record how far each append-only table is imported with no row left behind, in the import's last batch. */
  private async recordMarks(source: Database.Database, schema: SourceSchema): Promise<void> {
    for (const table of Object.keys(APPEND_TABLES) as AppendTable[]) {
      const id = this.recordable[table];
      const record = await this.book.get(MARK, table);
      const before = record?.state ? (JSON.parse(record.state) as RecordedMark).id : 0;
      if (id <= before) continue;
      const row = readAppendRow(source, schema, table, id);
      if (!row) continue;
      const mark: RecordedMark = { id, sessionId: text(row.session_id), timestamp: String(row.timestamp ?? "") };
      await this.writer.row(() => this.book.put(MARK, table, { targetId: null, sessionId: null, state: mark }, new Date()));
    }
  }

  report(tally: Tally, milliseconds: number): ImportReport {
    const info = this.info!;
    return {
      source: "bazinga",
      file: this.file,
      schema: { version: info.version === null ? "unknown" : `v${info.version}`, detectedFrom: info.detectedFrom, notes: info.notes },
      entities: tally.entities(),
      notMapped: info.notMapped,
      milliseconds,
    };
  }

  close(): void {
    this.source?.close();
    this.source = null;
    this.stateSource?.close();
    this.stateSource = null;
  }
}

/** Import a BAZINGA database once: everything new or changed since any earlier import of it. */
export async function importBazinga(db: Db, file: string, options: SyncOptions = {}): Promise<ImportReport> {
  const started = performance.now();
  const importer = new BazingaImporter(db, file);
  try {
    importer.open();
    const tally = await importer.sync(options);
    return importer.report(tally, Math.round(performance.now() - started));
  } finally {
    importer.close();
  }
}
