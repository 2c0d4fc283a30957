import { queryGet } from "@/db/query";
import { insertReturning, prepared } from "@/db/prepared";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { and, eq, sql } from "drizzle-orm";
import { contextPackageConsumers, contextPackages } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import type { Db } from "@/db/client";
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
export async function markContextConsumed(ctx: ServiceContext, raw: MarkContextConsumedInput): Promise<ContextConsumerRow> {
  requireLogWriter(ctx, "mark context consumed");
  const input = parseInput(MarkContextConsumedInput, raw, "log.invalid_input");
  return write(ctx, async (tx) => {
    const { pkg, existing } = await findReader(ctx.db, input);
    if (existing?.consumedAt) return existing;
    const now = nowOf(ctx);
    const row = existing
      ? (await queryGet(tx.update(contextPackageConsumers).set({ consumedAt: now }).where(eq(contextPackageConsumers.id, existing.id)).returning()))!
      : (await insertReturning(ctx.db, "context.insert_consumer", contextPackageConsumers, {
          packageId: pkg.id,
          agentType: input.agentType,
          iteration: input.iteration,
          consumedAt: now,
        }))!;
    await appendEvent(tx, ctx, {
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
export async function addContextReader(ctx: ServiceContext, raw: MarkContextConsumedInput): Promise<ContextConsumerRow> {
  requireLogWriter(ctx, "add context package readers");
  const input = parseInput(MarkContextConsumedInput, raw, "log.invalid_input");
  return write(ctx, async (tx) => {
    const { pkg, existing } = await findReader(ctx.db, input);
    if (existing) return existing;
    const row = (await insertReturning(ctx.db, "context.insert_consumer", contextPackageConsumers, {
      packageId: pkg.id,
      agentType: input.agentType,
      iteration: input.iteration,
    }))!;
    await appendEvent(tx, ctx, {
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
async function findReader(db: Db, input: { packageId: number; agentType: string; iteration: number }) {
  const packageQuery = prepared(db, "context.package_of_reader", () =>
    db
      .select({ id: contextPackages.id, sessionId: contextPackages.sessionId })
      .from(contextPackages)
      .where(eq(contextPackages.id, sql.placeholder("packageId")))
      .prepare(),
  );
  const pkg = await packageQuery.get({ packageId: input.packageId });
  if (!pkg) throw new NotFoundError("context_package", input.packageId);
  const readerQuery = prepared(db, "context.reader", () =>
    db
      .select()
      .from(contextPackageConsumers)
      .where(
        and(
          eq(contextPackageConsumers.packageId, sql.placeholder("packageId")),
          eq(contextPackageConsumers.agentType, sql.placeholder("agentType")),
          eq(contextPackageConsumers.iteration, sql.placeholder("iteration")),
        ),
      )
      .prepare(),
  );
  return { pkg, existing: await readerQuery.get({ packageId: pkg.id, agentType: input.agentType, iteration: input.iteration }) };
}
