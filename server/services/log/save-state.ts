import { insertReturning } from "@/db/prepared";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { stateSnapshots } from "@/db/schema";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { requireLogWriter } from "./common";
import { redactDocument } from "./redaction";
import { SaveStateInput } from "./schemas";
import { parseInput } from "../parse-input";

export type StateSnapshotRow = typeof stateSnapshots.$inferSelect;

/**
 * Save a state snapshot (BAZINGA's `save-state`: pm, orchestrator, group_status, investigation) for
 * a group (default `global`). Append-only: the newest row of a type and group is the current state.
 * The JSON is validated, and its secrets redacted, before it is stored.
 */
export async function saveState(ctx: ServiceContext, raw: SaveStateInput): Promise<StateSnapshotRow> {
  requireLogWriter(ctx, "save state");
  const input = parseInput(SaveStateInput, raw, "log.invalid_input");
  const data = redactDocument(input.data);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const row = (await insertReturning(ctx.db, "state.insert", stateSnapshots, {
      sessionId: input.sessionId,
      groupId: input.groupId,
      stateType: input.stateType,
      stateData: data.value,
      timestamp: nowOf(ctx),
    }))!;
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.stateSaved,
      sessionId: row.sessionId,
      entity: "state_snapshot",
      entityId: row.id,
      data: { stateType: row.stateType, groupId: row.groupId, redacted: data.redacted },
    });
    return row;
  });
}
