import { type Db, withConnection } from "@/db/client";
import { operatorActor } from "@/server/domain/actors";
import { ValidationError } from "@/server/domain/errors";
import type { ProgressListener } from "../../progress";
import { RecordBook } from "../records";
import { type ImportReport, Tally } from "../report";
import type { ImportRun } from "../run";
import { SourceSchema, openSource } from "../source";
import { ImportWriter } from "../writer";
import { V1_ENTITIES, V1_NOT_MAPPED, importShotsOnGoalV1 } from "./v1";
import { V2_ENTITIES, importShotsOnGoalV2 } from "./v2";

export type ShotsOnGoalSchema = "v1" | "v2";

const V2_TABLES = [
  "session",
  "tool",
  "goal",
  "validation_step",
  "branch",
  "worktree",
  "attempt",
  "attempt_tool",
  "attempt_result",
  "tool_call",
  "validation_run",
  "merge",
];
const V1_TABLES = ["session", "goals", "attempts", "actions"];

/**
 * Which of shots-on-goal's schemas a file has: v2, the append-only model of 003 (twelve tables),
 * or v1, its main branch's one-database-per-session schema whose statuses are updated in place.
 * @throws ValidationError (exit 2) when it is neither, naming what a shots-on-goal file has.
 */
export function detectShotsOnGoal(schema: SourceSchema, file: string): ShotsOnGoalSchema {
  if (V2_TABLES.every((t) => schema.hasTable(t)) && schema.has("session", "initial_goal")) return "v2";
  if (V1_TABLES.every((t) => schema.hasTable(t)) && schema.has("session", "session_id")) return "v1";
  const hint =
    schema.has("sessions", "session_id") && schema.hasTable("task_groups") ? " — it looks like a BAZINGA database: use `proofgate import bazinga`" : "";
  throw new ValidationError(
    "path",
    "import.not_shots_on_goal",
    `${file} is not a shots-on-goal database: it has neither the v2 tables (${V2_TABLES.join(", ")}) nor the v1 tables (${V1_TABLES.join(", ")})${hint}`,
  );
}

/** Open the file read-only just long enough to tell which shots-on-goal schema it has. */
export function inspectShotsOnGoal(file: string): ShotsOnGoalSchema {
  const source = openSource(file, "a shots-on-goal database");
  try {
    return detectShotsOnGoal(new SourceSchema(source), file);
  } finally {
    source.close();
  }
}

/**
 * Import a shots-on-goal database (either schema) into Proofgate's goal tables: each session under
 * an id that stays the same on every import of this file, `source = 'shots-on-goal'`; importing
 * again (or a later copy) adds only what is new. `onProgress` hears each row done (phase = the
 * source table). The import holds the ledger's connection throughout (`withConnection`): its batches
 * are transactions opened by hand, which no other caller in this process may write inside; the
 * services it calls nest in them as savepoints.
 */
export async function importShotsOnGoal(db: Db, file: string, options: { onProgress?: ProgressListener } = {}): Promise<ImportReport> {
  const started = performance.now();
  const source = openSource(file, "a shots-on-goal database");
  try {
    const schema = new SourceSchema(source);
    const version = detectShotsOnGoal(schema, file);
    const tally = new Tally(version === "v2" ? V2_ENTITIES : V1_ENTITIES);
    await withConnection(db, async () => {
      const book = await RecordBook.open(db, "shots-on-goal");
      const writer = new ImportWriter(db, book);
      const run: ImportRun = { db, book, writer, tally, actor: operatorActor("shots-on-goal"), startedAt: new Date() };
      try {
        if (version === "v2") await importShotsOnGoalV2(run, source, options.onProgress);
        else await importShotsOnGoalV1(run, source, options.onProgress);
        await writer.flush();
      } catch (error) {
        await writer.abort();
        throw error;
      }
    });
    const known = version === "v2" ? V2_TABLES : V1_TABLES;
    const extra = schema
      .tables()
      .filter((t) => !known.includes(t))
      .map((t) => `table ${t}: not a table this importer knows`);
    return {
      source: "shots-on-goal",
      file,
      schema: {
        version,
        detectedFrom: version === "v2" ? "the twelve tables of the append-only model" : "the single-session tables session, goals, attempts, actions",
        notes: [],
      },
      entities: tally.entities(),
      notMapped: [...(version === "v1" ? V1_NOT_MAPPED.filter((c) => schema.has(c.split(".")[0]!, c.split(".")[1]!.split(":")[0]!)) : []), ...extra],
      milliseconds: Math.round(performance.now() - started),
    };
  } finally {
    source.close();
  }
}
