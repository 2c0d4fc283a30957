import { queryAll, queryGet, queryRun } from "@/db/query";
import { mapInOrder } from "../in-order";
import { and, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db/client";
import { orchestrationLogs, strategies } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { MAX_INSIGHT_LENGTH, STRATEGY_PHASES, strategyId, strategyTopic } from "@/server/domain/learning";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { requireLogWriter } from "../log/common";
import { redactText } from "../log/redaction";
import { parseInput } from "../parse-input";
import { loadSession } from "../session/load";
import { ExtractStrategiesInput, GetStrategiesInput, SaveStrategyInput, UpdateStrategyHelpfulnessInput } from "./schemas";
import { sha256Hex } from "./sha256";

export type StrategyRow = typeof strategies.$inferSelect;

interface StrategyValues {
  strategyId: string;
  projectId: string;
  topic: string;
  insight: string;
  lang: string | null;
  framework: string | null;
  sessionId: string | null;
  redacted: boolean;
}

/** Insert, or count one more time it helped (bazinga_db.py's ON CONFLICT … helpfulness + 1). */
async function upsert(tx: Tx, now: Date, values: StrategyValues): Promise<StrategyRow> {
  return await queryGet(
    tx
      .insert(strategies)
      .values({ ...values, helpfulness: 1, lastSeen: now, createdAt: now })
      .onConflictDoUpdate({ target: strategies.strategyId, set: { helpfulness: sql`${strategies.helpfulness} + 1`, lastSeen: now } })
      .returning(),
  );
}

/**
 * Save a strategy for a project (BAZINGA's `save-strategy`): an unknown topic is `general`, the
 * insight is cut to 500 characters and redacted, and the id is derived from it unless given, so
 * saving the same insight again counts it as helpful once more.
 */
export async function saveStrategy(ctx: ServiceContext, raw: SaveStrategyInput): Promise<StrategyRow> {
  requireLogWriter(ctx, "save strategies");
  const input = parseInput(SaveStrategyInput, raw, "learning.invalid_input");
  const topic = strategyTopic(input.topic);
  const insight = redactText(input.insight.slice(0, MAX_INSIGHT_LENGTH));
  const id = input.strategyId ?? strategyId(sha256Hex, input.projectId, topic, input.insight);
  return write(ctx, async (tx) => {
    if (input.sessionId) await loadSession(tx, input.sessionId);
    const row = await upsert(tx, nowOf(ctx), {
      strategyId: id,
      projectId: input.projectId,
      topic,
      insight: insight.value,
      lang: input.lang ?? null,
      framework: input.framework ?? null,
      sessionId: input.sessionId ?? null,
      redacted: insight.redacted,
    });
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.strategySaved,
      sessionId: input.sessionId ?? null,
      entity: "strategy",
      entityId: id,
      data: { projectId: input.projectId, topic, helpfulness: row.helpfulness },
    });
    return row;
  });
}

/** A project's strategies, most helpful first; a language or framework filter keeps the general ones too (`get-strategies`). */
export async function getStrategies(db: DbOrTx, raw: GetStrategiesInput): Promise<StrategyRow[]> {
  const input = parseInput(GetStrategiesInput, raw, "learning.invalid_input");
  const t = strategies;
  return await queryAll(
    db
      .select()
      .from(t)
      .where(
        and(
          eq(t.projectId, input.projectId),
          input.lang ? or(isNull(t.lang), eq(t.lang, input.lang)) : undefined,
          input.framework ? or(isNull(t.framework), eq(t.framework, input.framework)) : undefined,
          input.topic ? eq(t.topic, input.topic) : undefined,
        ),
      )
      .orderBy(desc(t.helpfulness), desc(t.lastSeen))
      .limit(input.limit),
  );
}

/** Count a strategy as helpful `increment` more times (`update-strategy-helpfulness`). */
export async function updateStrategyHelpfulness(
  ctx: ServiceContext,
  raw: UpdateStrategyHelpfulnessInput,
): Promise<{ strategyId: string; previousHelpfulness: number; newHelpfulness: number }> {
  requireLogWriter(ctx, "update strategy helpfulness");
  const input = parseInput(UpdateStrategyHelpfulnessInput, raw, "learning.invalid_input");
  return write(ctx, async (tx) => {
    const existing = await queryGet(tx.select().from(strategies).where(eq(strategies.strategyId, input.strategyId)));
    if (!existing) throw new NotFoundError("strategy", input.strategyId);
    const helpfulness = existing.helpfulness + input.increment;
    await queryRun(
      tx
        .update(strategies)
        .set({ helpfulness, lastSeen: nowOf(ctx) })
        .where(eq(strategies.strategyId, input.strategyId)),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.strategyHelpfulnessUpdated,
      sessionId: existing.sessionId,
      entity: "strategy",
      entityId: input.strategyId,
      data: { from: existing.helpfulness, to: helpfulness },
    });
    return { strategyId: input.strategyId, previousHelpfulness: existing.helpfulness, newHelpfulness: helpfulness };
  });
}

/**
 * Turn a group's latest completion, decisions and approach reasoning (up to five entries) into
 * strategies of the project (`extract-strategies`, run after a tech lead's approval): completion →
 * implementation, decisions → architecture, approach → methodology.
 */
export async function extractStrategies(ctx: ServiceContext, raw: ExtractStrategiesInput): Promise<{ extracted: number; strategies: StrategyRow[] }> {
  requireLogWriter(ctx, "extract strategies");
  const input = parseInput(ExtractStrategiesInput, raw, "learning.invalid_input");
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const l = orchestrationLogs;
    const reasoning = await queryAll(
      tx
        .select({ phase: l.reasoningPhase, content: l.content, redacted: l.redacted })
        .from(l)
        .where(
          and(
            eq(l.sessionId, input.sessionId),
            eq(l.groupId, input.groupId),
            eq(l.logType, "reasoning"),
            inArray(l.reasoningPhase, Object.keys(STRATEGY_PHASES) as never[]),
          ),
        )
        .orderBy(desc(l.id))
        .limit(5),
    );
    const now = nowOf(ctx);
    const rows = await mapInOrder(reasoning, async (r) => {
      const topic = STRATEGY_PHASES[r.phase ?? ""] ?? "general";
      return upsert(tx, now, {
        strategyId: strategyId(sha256Hex, input.projectId, topic, r.content),
        projectId: input.projectId,
        topic,
        insight: r.content.slice(0, MAX_INSIGHT_LENGTH),
        lang: input.lang ?? null,
        framework: input.framework ?? null,
        sessionId: input.sessionId,
        redacted: r.redacted,
      });
    });
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.strategiesExtracted,
      sessionId: input.sessionId,
      entity: "strategy",
      entityId: null,
      data: { groupId: input.groupId, projectId: input.projectId, strategyIds: rows.map((r) => r.strategyId) },
    });
    return { extracted: rows.length, strategies: rows };
  });
}

/** A strategy as BAZINGA stored it (an import): id, topic word and counts kept, the insight redacted. */
export async function recordStrategy(ctx: ServiceContext, record: Omit<StrategyRow, "redacted" | "sessionId">): Promise<StrategyRow> {
  requireLogWriter(ctx, "save strategies");
  const insight = redactText(record.insight);
  const values = { ...record, insight: insight.value, helpfulness: Math.max(0, record.helpfulness), redacted: insight.redacted };
  return write(ctx, async (tx) => {
    const row = await queryGet(
      tx
        .insert(strategies)
        .values(values)
        .onConflictDoUpdate({
          target: strategies.strategyId,
          set: {
            projectId: values.projectId,
            topic: values.topic,
            insight: values.insight,
            helpfulness: values.helpfulness,
            lang: values.lang,
            framework: values.framework,
            lastSeen: values.lastSeen,
            redacted: values.redacted,
          },
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.strategySaved,
      sessionId: null,
      entity: "strategy",
      entityId: row.strategyId,
      data: { projectId: row.projectId, topic: row.topic, helpfulness: row.helpfulness },
    });
    return row;
  });
}
