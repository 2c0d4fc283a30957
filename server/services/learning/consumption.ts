import { queryAll } from "@/db/query";
import { insertReturning, prepared } from "@/db/prepared";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { consumptionScope } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { consumptionScopeId } from "@/server/domain/learning";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { requireLogWriter } from "../log/common";
import { parseInput } from "../parse-input";
import { loadSession } from "../session/load";
import { GetConsumptionInput, SaveConsumptionInput } from "./schemas";
import { sha256Hex } from "./sha256";

export type ConsumptionRow = typeof consumptionScope.$inferSelect;

/** Record that an agent read a context package in an iteration of a group; the same record twice is one row (`save-consumption`). */
export async function saveConsumption(ctx: ServiceContext, raw: SaveConsumptionInput): Promise<ConsumptionRow & { inserted: boolean }> {
  requireLogWriter(ctx, "save consumption");
  const input = parseInput(SaveConsumptionInput, raw, "learning.invalid_input");
  const scopeId = consumptionScopeId(sha256Hex, input.sessionId, input.groupId, input.agentType, input.iteration, input.packageId);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const existing = await prepared(ctx.db, "learning.consumption_by_scope", () =>
      ctx.db
        .select()
        .from(consumptionScope)
        .where(eq(consumptionScope.scopeId, sql.placeholder("scopeId")))
        .prepare(),
    ).get({ scopeId });
    if (existing) return { ...existing, inserted: false };
    const row = (await insertReturning(ctx.db, "learning.insert_consumption", consumptionScope, { scopeId, ...input, consumedAt: nowOf(ctx) }))!;
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.consumptionSaved,
      sessionId: input.sessionId,
      entity: "consumption_scope",
      entityId: scopeId,
      data: { groupId: input.groupId, agentType: input.agentType, iteration: input.iteration, packageId: input.packageId },
    });
    return { ...row, inserted: true };
  });
}

/** A session's consumption records, newest first (`get-consumption`). */
export async function getConsumption(db: DbOrTx, raw: GetConsumptionInput): Promise<ConsumptionRow[]> {
  const input = parseInput(GetConsumptionInput, raw, "learning.invalid_input");
  await loadSession(db, input.sessionId);
  const t = consumptionScope;
  return await queryAll(
    db
      .select()
      .from(t)
      .where(
        and(
          eq(t.sessionId, input.sessionId),
          input.groupId ? eq(t.groupId, input.groupId) : undefined,
          input.agentType ? eq(t.agentType, input.agentType) : undefined,
        ),
      )
      // Newest first; rows of the same millisecond in one order on both engines (the latest iteration first).
      .orderBy(desc(t.consumedAt), desc(t.iteration), asc(t.scopeId))
      .limit(input.limit),
  );
}
