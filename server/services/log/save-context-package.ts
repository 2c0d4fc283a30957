import { queryGet } from "@/db/query";
import { mapInOrder } from "../in-order";
import { insertReturning } from "@/db/prepared";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { and, eq } from "drizzle-orm";
import { contextPackageConsumers, contextPackages } from "@/db/schema";
import { ValidationError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { requireLogWriter } from "./common";
import { redactText } from "./redaction";
import { SaveContextPackageInput } from "./schemas";
import { parseInput } from "../parse-input";

export type ContextPackageRow = typeof contextPackages.$inferSelect;
export type ContextConsumerRow = typeof contextPackageConsumers.$inferSelect;

const SUMMARY_LENGTH = 200;

/**
 * Save a context package (research, failures, decisions, handoff, investigation) for a group or the
 * whole session, with one pending consumer row per agent type that should read it (BAZINGA's
 * `save-context-package`). A package that supersedes another is that one's next version.
 */
export async function saveContextPackage(
  ctx: ServiceContext,
  raw: SaveContextPackageInput,
): Promise<{ package: ContextPackageRow; consumers: ContextConsumerRow[] }> {
  requireLogWriter(ctx, "save context packages");
  const input = parseInput(SaveContextPackageInput, raw, "log.invalid_input");
  const global = !input.groupId || input.groupId === "global";
  const summary = redactText(input.summary.replace(/[\r\n]+/g, " "));
  const oneLine = summary.value.length > SUMMARY_LENGTH ? `${summary.value.slice(0, SUMMARY_LENGTH - 3)}...` : summary.value;
  const filePath = redactText(input.filePath);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    let version = 1;
    if (input.supersedesId) {
      const previous = await queryGet(
        tx
          .select({ version: contextPackages.version })
          .from(contextPackages)
          .where(and(eq(contextPackages.id, input.supersedesId), eq(contextPackages.sessionId, input.sessionId))),
      );
      if (!previous)
        throw new ValidationError("supersedesId", "context.supersedes_unknown", `no context package ${input.supersedesId} in this session to supersede`);
      version = previous.version + 1;
    }
    const pkg = (await insertReturning(ctx.db, "context.insert_package", contextPackages, {
      sessionId: input.sessionId,
      groupId: global ? null : input.groupId,
      scope: global ? "global" : "group",
      packageType: input.packageType,
      filePath: filePath.value,
      producerAgent: input.producerAgent,
      priority: input.priority,
      summary: oneLine,
      sizeBytes: input.sizeBytes ?? null,
      version,
      supersedesId: input.supersedesId ?? null,
      createdAt: nowOf(ctx),
    }))!;
    const consumers = await mapInOrder(
      [...new Set(input.consumers)],
      async (agentType) => (await insertReturning(ctx.db, "context.insert_consumer", contextPackageConsumers, { packageId: pkg.id, agentType }))!,
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.contextPackageSaved,
      sessionId: pkg.sessionId,
      entity: "context_package",
      entityId: pkg.id,
      data: {
        packageType: pkg.packageType,
        groupId: pkg.groupId,
        priority: pkg.priority,
        consumers: consumers.map((c) => c.agentType),
        redacted: summary.redacted || filePath.redacted,
      },
    });
    return { package: pkg, consumers };
  });
}
