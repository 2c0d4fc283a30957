import type Database from "better-sqlite3";
import { type Db, type Tx, writeTransaction } from "@/db/client";
import type { events } from "@/db/schema";
import type { Actor } from "@/server/domain/actors";
import type { Enforcement } from "@/server/domain/task-machine";
import { toDomainError } from "./sqlite-errors";
import type { RuntimeSessionRef } from "./runtime/schemas";

/** What every service verb receives: the database and who is acting. */
export interface ServiceContext {
  db: Db;
  actor: Actor;
  /** Injected clock (tests); defaults to the real time. */
  now?: () => Date;
  /** Enforcement for sessions created without one (server-wide default, e.g. PROOFGATE_ENFORCEMENT). */
  defaultEnforcement?: Enforcement;
  /**
   * The agent runtime session (a Claude Code session) the call was made in: PROOFGATE_RUNTIME_SESSION
   * in local mode, the X-Proofgate-Runtime-Session header remotely. A session created with it is linked to it.
   */
  runtimeSession?: RuntimeSessionRef;
}

export function nowOf(ctx: ServiceContext): Date {
  return ctx.now?.() ?? new Date();
}

/**
 * Run one action as one transaction. `BEGIN IMMEDIATE` takes the write lock up front, so a
 * concurrent writer in another process waits for it (fairly: see writeTransaction) instead of
 * failing with SQLITE_BUSY when a read-then-write transaction tries to upgrade. A refusal from a
 * trigger becomes the same domain error the domain would have raised; nothing of the action is kept.
 */
export function write<T>(ctx: ServiceContext, action: (tx: Tx) => T): T {
  try {
    return writeTransaction(ctx.db, action);
  } catch (error) {
    throw toDomainError(error);
  }
}

export interface EventInput {
  type: string;
  sessionId: string | null;
  entity: string;
  entityId: string | number | null;
  data?: Record<string, unknown>;
}

/** The `events` row a mutation owes: what happened, to what, and who did it when. */
export function eventRow(ctx: ServiceContext, event: EventInput) {
  return {
    at: nowOf(ctx),
    type: event.type,
    sessionId: event.sessionId,
    entity: event.entity,
    entityId: event.entityId === null ? null : String(event.entityId),
    actor: ctx.actor.label,
    principalId: ctx.actor.principalId,
    role: ctx.actor.role,
    data: event.data ?? null,
  } satisfies typeof events.$inferInsert;
}

const insertEventStatements = new WeakMap<Database.Database, Database.Statement>();

/**
 * Append the `events` row every mutation owes, inside the mutation's transaction (`tx` is on
 * `ctx.db`'s connection). One statement prepared per connection and the values encoded as Drizzle
 * encodes them (time in ms, data as JSON): building the INSERT through Drizzle on every call was
 * a tenth of a large import's time.
 */
export function appendEvent(_tx: Tx, ctx: ServiceContext, event: EventInput): void {
  const sqlite = ctx.db.$client;
  let insert = insertEventStatements.get(sqlite);
  if (!insert) {
    insert = sqlite.prepare("INSERT INTO events (at, type, session_id, entity, entity_id, actor, principal_id, role, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insertEventStatements.set(sqlite, insert);
  }
  const row = eventRow(ctx, event);
  insert.run(
    row.at.getTime(),
    row.type,
    row.sessionId,
    row.entity,
    row.entityId,
    row.actor,
    row.principalId,
    row.role,
    row.data === null ? null : JSON.stringify(row.data),
  );
}
