import { EVENT_TYPES } from "@/server/domain/event-types";
import { and, eq } from "drizzle-orm";
import { contextPackageConsumers, contextPackages } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import type { Tx } from "@/db/client";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { requireLogWriter } from "./common";
import { MarkContextConsumedInput } from "./schemas";
import type { ContextConsumerRow } from "./save-context-package";
import { parseInput } from "../parse-input";

/**
 * Mark a context package consumed by an agent type at an iteration (BAZINGA's
 * `mark-context-consumed`). The consumer row for that iteration is created if it is missing, so a
 * re-spawned agent's reading is recorded too; marking again keeps the first time and writes nothing.
 */
export function markContextConsumed(ctx: ServiceContext, raw: MarkContextConsumedInput): ContextConsumerRow {
  requireLogWriter(ctx, "mark context consumed");
  const input = parseInput(MarkContextConsumedInput, raw, "log.invalid_input");
  return write(ctx, (tx) => {
    const { pkg, existing } = findReader(tx, input);
    if (existing?.consumedAt) return existing;
    const now = nowOf(ctx);
    const row = existing
      ? tx.update(contextPackageConsumers).set({ consumedAt: now }).where(eq(contextPackageConsumers.id, existing.id)).returning().get()!
      : tx
          .insert(contextPackageConsumers)
          .values({ packageId: pkg.id, agentType: input.agentType, iteration: input.iteration, consumedAt: now })
          .returning()
          .get();
    appendEvent(tx, ctx, {
      type: EVENT_TYPES.contextConsumed,
      sessionId: pkg.sessionId,
      entity: "context_package",
      entityId: pkg.id,
      data: { agentType: row.agentType, iteration: row.iteration, created: !existing },
    });
    return row;
  });
}

/**
 * Add a reader a package is waiting for, not yet consumed (an import: BAZINGA added a reader for a
 * later iteration, or after the package was saved). Nothing is written if the reader is there.
 */
export function addContextReader(ctx: ServiceContext, raw: MarkContextConsumedInput): ContextConsumerRow {
  requireLogWriter(ctx, "add context package readers");
  const input = parseInput(MarkContextConsumedInput, raw, "log.invalid_input");
  return write(ctx, (tx) => {
    const { pkg, existing } = findReader(tx, input);
    if (existing) return existing;
    const row = tx.insert(contextPackageConsumers).values({ packageId: pkg.id, agentType: input.agentType, iteration: input.iteration }).returning().get();
    appendEvent(tx, ctx, {
      type: EVENT_TYPES.contextPackageSaved,
      sessionId: pkg.sessionId,
      entity: "context_package",
      entityId: pkg.id,
      data: { readerAdded: row.agentType, iteration: row.iteration },
    });
    return row;
  });
}

/** The package (refused if unknown) and its reader row for that agent type and iteration, if any. */
function findReader(tx: Tx, input: { packageId: number; agentType: string; iteration: number }) {
  const pkg = tx
    .select({ id: contextPackages.id, sessionId: contextPackages.sessionId })
    .from(contextPackages)
    .where(eq(contextPackages.id, input.packageId))
    .get();
  if (!pkg) throw new NotFoundError("context_package", input.packageId);
  const key = and(
    eq(contextPackageConsumers.packageId, pkg.id),
    eq(contextPackageConsumers.agentType, input.agentType),
    eq(contextPackageConsumers.iteration, input.iteration),
  );
  return { pkg, existing: tx.select().from(contextPackageConsumers).where(key).get() };
}
