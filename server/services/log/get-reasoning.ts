import { queryAll } from "@/db/query";
import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { orchestrationLogs } from "@/db/schema";
import { REASONING_PHASES } from "@/server/domain/vocabulary";
import { loadSession } from "../session/load";
import { CheckMandatoryPhasesInput, GetReasoningInput } from "./schemas";
import type { LogRow } from "./log-row";
import { parseInput } from "../parse-input";

type ReasoningPhase = (typeof REASONING_PHASES)[number];

/** Every agent documents at least these phases of its reasoning for a group (BAZINGA's rule). */
export const MANDATORY_PHASES: readonly ReasoningPhase[] = ["understanding", "completion"];

/** Reasoning entries, newest first, filtered by group, agent type and phase (BAZINGA's `get-reasoning`). */
export async function getReasoning(db: DbOrTx, raw: GetReasoningInput): Promise<LogRow[]> {
  const input = parseInput(GetReasoningInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = orchestrationLogs;
  return await queryAll(
    db
      .select()
      .from(t)
      .where(
        and(
          eq(t.sessionId, input.sessionId),
          eq(t.logType, "reasoning"),
          input.groupId ? eq(t.groupId, input.groupId) : undefined,
          input.agentType ? eq(t.agentType, input.agentType) : undefined,
          input.phase ? eq(t.reasoningPhase, input.phase) : undefined,
        ),
      )
      .orderBy(desc(t.id))
      .limit(input.limit),
  );
}

export interface MandatoryPhasesCheck {
  complete: boolean;
  /** Mandatory phases not yet documented, in phase order. */
  missing: ReasoningPhase[];
  /** Every phase this agent documented for the group, in phase order. */
  documented: ReasoningPhase[];
}

/** Has this agent type documented `understanding` and `completion` for this group? (`check-mandatory-phases`) */
export async function checkMandatoryPhases(db: DbOrTx, raw: CheckMandatoryPhasesInput): Promise<MandatoryPhasesCheck> {
  const input = parseInput(CheckMandatoryPhasesInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = orchestrationLogs;
  const rows = await queryAll(
    db
      .selectDistinct({ phase: t.reasoningPhase })
      .from(t)
      .where(
        and(
          eq(t.sessionId, input.sessionId),
          eq(t.logType, "reasoning"),
          eq(t.groupId, input.groupId),
          eq(t.agentType, input.agentType),
          sql`${t.reasoningPhase} is not null`,
        ),
      ),
  );
  const seen = new Set(rows.map((row) => row.phase));
  const missing = MANDATORY_PHASES.filter((phase) => !seen.has(phase));
  return { complete: missing.length === 0, missing, documented: REASONING_PHASES.filter((phase) => seen.has(phase)) };
}
