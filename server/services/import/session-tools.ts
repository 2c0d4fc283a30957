import { z } from "zod";
import { ensureTools } from "../attempt/tools";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { Label, SessionId } from "../schemas-common";
import { parseRow } from "./parse";
import { authorize } from "@/server/domain/permissions";

/** The event a tool defined by an imported session writes. */
export const TOOL_RECORDED = "tool.recorded";

export const RecordToolInput = z.strictObject({ sessionId: SessionId, name: Label, description: z.string().max(4000).nullish() });
export type RecordToolInput = z.input<typeof RecordToolInput>;

/**
 * A tool a session defined (003: tools are session-scoped), recorded before any attempt is given
 * it or calls it, so a tool no attempt used is on record too. One tool per name and session: an
 * existing one is returned as it is (tool rows are history).
 */
export async function recordTool(ctx: ServiceContext, input: RecordToolInput): Promise<{ id: number; created: boolean }> {
  authorize(ctx.actor, "tool.record");
  const data = parseRow(RecordToolInput, input);
  return write(ctx, async (tx) => {
    await loadSession(tx, data.sessionId);
    const { byName, created } = await ensureTools(tx, data.sessionId, [{ name: data.name, description: data.description ?? undefined }], nowOf(ctx));
    const tool = byName.get(data.name)!;
    if (created.length > 0)
      await appendEvent(tx, ctx, { type: TOOL_RECORDED, sessionId: data.sessionId, entity: "tool", entityId: tool.id, data: { name: tool.name } });
    return { id: tool.id, created: created.length > 0 };
  });
}
