import { insertReturning } from "@/db/prepared";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { skillOutputs } from "@/db/schema";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { requireLogWriter } from "./common";
import { redactDocument } from "./redaction";
import { SaveSkillOutputInput } from "./schemas";
import { parseInput } from "../parse-input";

export type SkillOutputRow = typeof skillOutputs.$inferSelect;

/** Save a skill's output (BAZINGA's `save-skill-output`: security scan, coverage, lint…), redacted. The latest one counts. */
export async function saveSkillOutput(ctx: ServiceContext, raw: SaveSkillOutputInput): Promise<SkillOutputRow> {
  requireLogWriter(ctx, "save skill outputs");
  const input = parseInput(SaveSkillOutputInput, raw, "log.invalid_input");
  const data = redactDocument(input.data);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const row = (await insertReturning(ctx.db, "skill_output.insert", skillOutputs, {
      sessionId: input.sessionId,
      skillName: input.skillName,
      outputData: data.value,
      agentType: input.agentType ?? null,
      groupId: input.groupId ?? null,
      iteration: input.iteration,
      timestamp: nowOf(ctx),
    }))!;
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.skillOutputSaved,
      sessionId: row.sessionId,
      entity: "skill_output",
      entityId: row.id,
      data: { skillName: row.skillName, agentType: row.agentType, groupId: row.groupId, redacted: data.redacted },
    });
    return row;
  });
}
