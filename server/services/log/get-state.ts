import { queryAll, queryGet } from "@/db/query";
import { and, desc, eq, gte, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { skillOutputs, stateSnapshots } from "@/db/schema";
import { loadSession } from "../session/load";
import { readJson } from "./redaction";
import type { StateSnapshotRow } from "./save-state";
import type { SkillOutputRow } from "./save-skill-output";
import { GetLatestStateInput, GetSkillOutputInput, ListSkillOutputsInput } from "./schemas";
import { parseInput } from "../parse-input";

export type StateSnapshot = Omit<StateSnapshotRow, "stateData"> & { data: unknown };
export type SkillOutput = Omit<SkillOutputRow, "outputData"> & { data: unknown };

/** The current state of a type for a group (default `global`): the newest snapshot, its JSON parsed; null if none (`get-state`). */
export async function getLatestState(db: DbOrTx, raw: GetLatestStateInput): Promise<StateSnapshot | null> {
  const input = parseInput(GetLatestStateInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = stateSnapshots;
  const row = await queryGet(
    db
      .select()
      .from(t)
      .where(and(eq(t.sessionId, input.sessionId), eq(t.stateType, input.stateType), eq(t.groupId, input.groupId)))
      .orderBy(desc(t.id))
      .limit(1),
  );
  if (!row) return null;
  const { stateData, ...rest } = row;
  return { ...rest, data: readJson(stateData) };
}

/** The latest output of a skill, optionally of one agent type and group, its JSON parsed; null if none (`get-skill-output`). */
export async function getSkillOutput(db: DbOrTx, raw: GetSkillOutputInput): Promise<SkillOutput | null> {
  const input = parseInput(GetSkillOutputInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = skillOutputs;
  const row = await queryGet(
    db
      .select()
      .from(t)
      .where(
        and(
          eq(t.sessionId, input.sessionId),
          eq(t.skillName, input.skillName),
          input.agentType ? eq(t.agentType, input.agentType) : undefined,
          input.groupId ? eq(t.groupId, input.groupId) : undefined,
        ),
      )
      .orderBy(desc(t.id))
      .limit(1),
  );
  if (!row) return null;
  const { outputData, ...rest } = row;
  return { ...rest, data: readJson(outputData) };
}

/** Every output of the named skills, newest first, each with its JSON parsed (`get-skill-output-all`, `check-skill-evidence`). */
export async function listSkillOutputs(db: DbOrTx, raw: ListSkillOutputsInput): Promise<SkillOutput[]> {
  const input = parseInput(ListSkillOutputsInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = skillOutputs;
  const rows = await queryAll(
    db
      .select()
      .from(t)
      .where(
        and(
          eq(t.sessionId, input.sessionId),
          inArray(t.skillName, input.skillNames),
          input.agentType ? eq(t.agentType, input.agentType) : undefined,
          input.sinceMs === undefined ? undefined : gte(t.timestamp, new Date(input.sinceMs)),
        ),
      )
      .orderBy(desc(t.id))
      .limit(input.limit),
  );
  return rows.map(({ outputData, ...rest }) => ({ ...rest, data: readJson(outputData) }));
}
