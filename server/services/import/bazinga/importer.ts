import type Database from "better-sqlite3";
import type { Db } from "@/db/client";
import { type Actor, operatorActor } from "@/server/domain/actors";
import { RecordBook } from "../records";
import { type ImportReport, Tally } from "../report";
import type { ImportRun } from "../run";
import { type SourceIdentity, SourceSchema, identityOf, openSource } from "../source";
import { int, text } from "../values";
import { ImportWriter } from "../writer";
import { AppendBatcher } from "./append";
import { importConfig } from "./config";
import { importContext } from "./context";
import { importCriteria, importMigratedCriteria } from "./criteria";
import { importLearning } from "./learning";
import { importLogs } from "./logs";
import { type Marks, type Row, readBazingaPass } from "./read";
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

/** `closed`: the connection was dropped after a failed read and must be opened again. */
export type SourceChange = "unchanged" | "changed" | "replaced" | "missing" | "closed";

/**
 * Imports a BAZINGA database into Proofgate: `open` checks the file and its schema version, `sync`
 * brings in whatever is new or changed since the last sync (or since any earlier import: the
 * import records say what is already in). A follower calls `poll` and `sync` again and again.
 */
export class BazingaImporter {
  private source: Database.Database | null = null;
  private identity: SourceIdentity | null = null;
  private dataVersion: number | null = null;
  private marks: Marks = { logs: 0, tokens: 0, decisions: 0 };
  private readonly book: RecordBook;
  private readonly writer: ImportWriter;
  private readonly actor: Actor;
  info: BazingaSchemaInfo | null = null;

  constructor(
    private readonly db: Db,
    readonly file: string,
  ) {
    this.book = new RecordBook(db, "bazinga");
    this.writer = new ImportWriter(db.$client, this.book);
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
    if (!identity || !this.identity || identity.ino !== this.identity.ino || identity.dev !== this.identity.dev)
      this.marks = { logs: 0, tokens: 0, decisions: 0 };
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

  /** Import what is new or changed. Reads happen in short read transactions; nothing waits on BAZINGA's writers. */
  sync(): Tally {
    const source = this.source;
    if (!source) throw new Error("open the source first");
    this.dataVersion = source.pragma("data_version", { simple: true }) as number;
    const schema = new SourceSchema(source);
    const tally = new Tally(BAZINGA_ENTITIES);
    const run: ImportRun = { db: this.db, book: this.book, writer: this.writer, tally, actor: this.actor, startedAt: new Date() };
    const gate = new SessionGate();
    const batcher = new AppendBatcher(run);
    const marksAtStart = { ...this.marks };
    const wanted = (table: "state_snapshots" | "skill_outputs", row: Row) => {
      const record = this.book.get(table === "state_snapshots" ? "state" : "skill_output", `${text(row.session_id)}|${int(row.id)}`);
      return !record || record.state !== fingerprint(row);
    };
    try {
      for (let first = true; ; first = false) {
        const pass = readBazingaPass(source, schema, this.marks, wanted);
        // Later passes only drain the append-only tables (and any session created meanwhile).
        importSessions(run, first ? pass.sessions : pass.sessions.filter((s) => !gate.knows(s.session_id)), gate);
        if (first) {
          importTaskGroups(run, pass.taskGroups, gate);
          importCriteria(run, pass.criteria, gate);
          importMigratedCriteria(run, pass.pmStates, pass.criteria, gate);
        }
        this.marks.logs = importLogs(run, pass.logs, gate, this.marks.logs, batcher);
        batcher.flush();
        this.marks.tokens = importTokens(run, pass.tokens, gate, this.marks.tokens, batcher);
        this.marks.decisions = importDecisions(run, pass.decisions, gate, this.marks.decisions);
        if (first) {
          importVersioned(run, "state_snapshots", pass.states, pass.statesRead, gate);
          importVersioned(run, "skill_outputs", pass.skillOutputs, pass.skillOutputsRead, gate);
          importPlans(run, pass.plans, gate);
          importContext(run, pass.packages, pass.consumers, gate);
          importLearning(run, pass, gate);
          importConfig(run, pass.config);
          importSessionStatuses(run, pass.sessions, gate);
        }
        this.writer.flush();
        if (!pass.more) break;
      }
    } catch (error) {
      this.writer.abort();
      // What the aborted batch held is not in: read those rows again next time (the records skip the rest).
      this.marks = marksAtStart;
      throw error;
    }
    return tally;
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
  }
}

/** Import a BAZINGA database once: everything new or changed since any earlier import of it. */
export function importBazinga(db: Db, file: string): ImportReport {
  const started = performance.now();
  const importer = new BazingaImporter(db, file);
  try {
    importer.open();
    const tally = importer.sync();
    return importer.report(tally, Math.round(performance.now() - started));
  } finally {
    importer.close();
  }
}
