import { queryAll, queryGet, queryRun } from "@/db/query";
import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db/client";
import { runtimeSessionLinks, runtimeSessions, sessions } from "@/db/schema";
import type { RUNTIME_SESSION_SOURCES } from "@/db/schema/runtime";
import type { Actor } from "@/server/domain/actors";
import { authorizeRuntimeSession } from "@/server/domain/runtime-owner";
import type { RuntimeSessionRef } from "./schemas";

export type RuntimeSessionRow = typeof runtimeSessions.$inferSelect;

/**
 * The runtime session's row, created on first sight (a SessionStart, or a command run inside a
 * runtime session whose SessionStart was never reported) and owned by the principal that reported
 * it; `lastSeenAt` moves on every call.
 * @throws RoleForbiddenError (`runtime.session_owner`) when another principal owns it (nothing written).
 */
export async function ensureRuntimeSession(
  tx: Tx,
  actor: Actor,
  ref: RuntimeSessionRef,
  seen: { at: Date; cwd?: string | null; source?: (typeof RUNTIME_SESSION_SOURCES)[number] },
): Promise<RuntimeSessionRow> {
  const update: Partial<typeof runtimeSessions.$inferInsert> = { lastSeenAt: seen.at, ownerPrincipal: actor.principalId };
  if (seen.cwd) update.cwd = seen.cwd;
  // A command run inside the runtime session says nothing about how the runtime (re)started.
  if (seen.source && seen.source !== "command") update.source = seen.source;
  const row = await queryGet(
    tx
      .insert(runtimeSessions)
      .values({
        runtime: ref.runtime,
        externalId: ref.externalId,
        cwd: seen.cwd ?? null,
        source: seen.source ?? "command",
        firstSeenAt: seen.at,
        lastSeenAt: seen.at,
        ownerPrincipal: actor.principalId,
      })
      // Only an unowned row or the owner's own is updated, in the statement itself: two principals
      // reporting the same new runtime session at once cannot both become its owner.
      .onConflictDoUpdate({
        target: [runtimeSessions.runtime, runtimeSessions.externalId],
        set: update,
        setWhere: or(isNull(runtimeSessions.ownerPrincipal), eq(runtimeSessions.ownerPrincipal, actor.principalId)),
      })
      .returning(),
  );
  if (row) return row;
  const owned = await findRuntimeSession(tx, ref);
  if (owned) authorizeRuntimeSession(actor, owned);
  throw new Error(`runtime session ${JSON.stringify(ref.externalId)} was neither written nor found`);
}

/** The runtime session's row if it was ever seen. */
export async function findRuntimeSession(db: DbOrTx, ref: RuntimeSessionRef): Promise<RuntimeSessionRow | undefined> {
  return await queryGet(
    db
      .select()
      .from(runtimeSessions)
      .where(and(eq(runtimeSessions.runtime, ref.runtime), eq(runtimeSessions.externalId, ref.externalId))),
  );
}

/**
 * Link a ledger session, just created in `tx`, to the runtime session it was created in. Called
 * by the session-create service when its context names a runtime session; only the runtime
 * session's owner may (ensureRuntimeSession).
 */
export async function linkToRuntimeSession(tx: Tx, actor: Actor, ref: RuntimeSessionRef, sessionId: string, at: Date): Promise<RuntimeSessionRow> {
  const runtime = await ensureRuntimeSession(tx, actor, ref, { at });
  await queryRun(tx.insert(runtimeSessionLinks).values({ sessionId, runtimeSessionId: runtime.id, linkedAt: at }));
  return runtime;
}

/** The ids of the linked ledger sessions that are still active, oldest link first. */
export async function activeLinkedSessions(db: DbOrTx, runtimeSessionId: number): Promise<string[]> {
  return (
    await queryAll(
      db
        .select({ id: runtimeSessionLinks.sessionId })
        .from(runtimeSessionLinks)
        .innerJoin(sessions, eq(sessions.id, runtimeSessionLinks.sessionId))
        .where(and(eq(runtimeSessionLinks.runtimeSessionId, runtimeSessionId), eq(sessions.status, "active")))
        .orderBy(runtimeSessionLinks.linkedAt, sql`${runtimeSessionLinks.sessionId}`),
    )
  ).map((row) => row.id);
}
