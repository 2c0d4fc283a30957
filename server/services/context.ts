import { type Db, type Tx, engineOf, writeTransaction, writeTransactionSync } from "@/db/client";
import { queryGet } from "@/db/query";
import { boundAll, driverValues, prepared } from "@/db/prepared";
import { events } from "@/db/schema";
import { type Actor, viaOf } from "@/server/domain/actors";
import type { Enforcement } from "@/server/domain/task-machine";
import { toDomainError as toPgDomainError } from "@/db/pg/errors";
import { toDomainError } from "./sqlite-errors";
import type { RuntimeSessionRef } from "./runtime/schemas";
import { enqueueWebhookDeliveries, enqueueWebhookDeliveriesSync } from "./webhooks/enqueue";

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
export async function write<T>(ctx: ServiceContext, action: (tx: Tx) => T | Promise<T>): Promise<T> {
  return refusalsMapped(ctx, () => writeTransaction(ctx.db, action));
}

/**
 * `write` for an action that never awaits, on SQLite only (every statement a better-sqlite3 call, as
 * in a task move): the transaction runs in one synchronous stretch when the connection is free,
 * with no turn of the event loop between its statements (db/client.ts, writeTransactionSync).
 */
export async function writeSync<T>(ctx: ServiceContext, action: (tx: Tx) => T): Promise<T> {
  return refusalsMapped(ctx, () => writeTransactionSync(ctx.db, action));
}

async function refusalsMapped<T>(ctx: ServiceContext, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw engineOf(ctx.db) === "postgres" ? toPgDomainError(error) : toDomainError(error);
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
    via: viaOf(ctx.actor),
    data: event.data ?? null,
  } satisfies typeof events.$inferInsert;
}

const EVENT_KEYS = [
  "at",
  "type",
  "sessionId",
  "entity",
  "entityId",
  "actor",
  "principalId",
  "role",
  "via",
  "data",
] as const satisfies readonly (keyof typeof events.$inferInsert)[];

/**
 * Append the `events` row every mutation owes, inside the mutation's transaction (`tx` is on
 * `ctx.db`'s connection), with the webhook deliveries it owes. One statement prepared per
 * connection (db/prepared.ts): building the INSERT through Drizzle on every call was a tenth of a
 * large import's time.
 */
export function appendEvent(_tx: Tx, ctx: ServiceContext, event: EventInput): Promise<number> {
  return appendEventRow(ctx, event);
}

/** `appendEvent` for the hot paths that hold no transaction object: call it inside `ctx.db`'s write transaction. Returns the event's id. */
export async function appendEventRow(ctx: ServiceContext, event: EventInput): Promise<number> {
  const db = ctx.db;
  if (engineOf(db) === "postgres") {
    const row = await queryGet(db.insert(events).values(eventRow(ctx, event)).returning({ id: events.id }));
    await enqueueWebhookDeliveries(db, row!.id, event.type, event.sessionId, event.data);
    return row!.id;
  }
  return appendEventRowSync(ctx, event);
}

/** `appendEventRow` on SQLite, where it never awaits: for an action of `writeSync`. */
export function appendEventRowSync(ctx: ServiceContext, event: EventInput): number {
  const db = ctx.db;
  const query = prepared(db, "events.append", () => db.insert(events).values(boundAll(EVENT_KEYS)).prepare());
  const { lastInsertRowid } = query.run(driverValues(events, eventRow(ctx, event), EVENT_KEYS));
  enqueueWebhookDeliveriesSync(db, lastInsertRowid, event.type, event.sessionId, event.data);
  return Number(lastInsertRowid);
}
