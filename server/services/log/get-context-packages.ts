import { queryAll } from "@/db/query";
import { and, desc, eq, notExists, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { DbOrTx } from "@/db/client";
import { contextPackageConsumers, contextPackages } from "@/db/schema";
import { loadSession } from "../session/load";
import type { ContextPackageRow } from "./save-context-package";
import { GetContextPackagesInput } from "./schemas";
import { parseInput } from "../parse-input";

export type RoutedContextPackage = ContextPackageRow & {
  /** When this agent type last consumed it, at any iteration; null if never. */
  consumedAt: Date | null;
  /** Some consumer row of this agent type is still waiting for it. */
  pending: boolean;
};

/**
 * The context packages to hand an agent at spawn (BAZINGA's `get-context-packages`): those of its
 * group and the session-wide ones that name its agent type as a consumer, not superseded by a newer
 * version, still pending unless `includeConsumed`, ranked critical → low and then newest first.
 */
export async function getContextPackages(db: DbOrTx, raw: GetContextPackagesInput): Promise<RoutedContextPackage[]> {
  const input = parseInput(GetContextPackagesInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const cp = contextPackages;
  const cpc = contextPackageConsumers;
  const newer = alias(contextPackages, "newer");
  const pendingCount = sql<number>`sum(case when ${cpc.consumedAt} is null then 1 else 0 end)`.mapWith(Number);
  const lastConsumed = sql<number | null>`max(${cpc.consumedAt})`;
  const rank = sql`case ${cp.priority} when 'critical' then 1 when 'high' then 2 when 'medium' then 3 else 4 end`;
  const rows = await queryAll(
    db
      .select({ pkg: cp, pendingCount, lastConsumed })
      .from(cp)
      .innerJoin(cpc, and(eq(cpc.packageId, cp.id), eq(cpc.agentType, input.agentType)))
      .where(
        and(
          eq(cp.sessionId, input.sessionId),
          or(eq(cp.groupId, input.groupId), eq(cp.scope, "global")),
          notExists(db.select({ id: newer.id }).from(newer).where(eq(newer.supersedesId, cp.id))),
        ),
      )
      .groupBy(cp.id)
      .having(input.includeConsumed ? undefined : sql`${pendingCount} > 0`)
      .orderBy(rank, desc(cp.createdAt), desc(cp.id))
      .limit(input.limit),
  );
  return rows.map(({ pkg, pendingCount: pending, lastConsumed: consumed }) => ({
    ...pkg,
    consumedAt: consumed === null ? null : new Date(Number(consumed)),
    pending: pending > 0,
  }));
}
