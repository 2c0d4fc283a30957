import { events } from "@/db/schema";
import type { Actor, Role } from "@/server/domain/actors";
import type { BulkWriter } from "./bulk";
import type { Random } from "./random";

/** Everything one generated session's writers share: the writer, the dice, and a clock that only moves forward. */
export interface SessionContext {
  w: BulkWriter;
  r: Random;
  sessionId: string;
  /** Epoch ms of the next write; `tick` advances it. */
  clock: number;
  /** Writes never go past this (the generator's "now"). */
  end: number;
}

/** Advance the session clock by a random number of minutes (capped at the generator's "now"). */
export function tick(ctx: SessionContext, minMinutes = 1, maxMinutes = 20): Date {
  ctx.clock = Math.min(ctx.end, ctx.clock + ctx.r.int(minMinutes * 60_000, maxMinutes * 60_000));
  return new Date(ctx.clock);
}

export function demoActor(label: string, role: Role): Actor {
  return { principalId: `token:demo-${label}`, principalKind: "token", role, label };
}

export const LEAD = { principalId: "user:demo-lead", principalKind: "user", role: "lead", label: "lead@example.com" } satisfies Actor;

/** Append the `events` row every mutation owes. */
export function emit(
  ctx: SessionContext,
  type: string,
  entity: string,
  entityId: string | number | null,
  actor: Actor,
  data: Record<string, unknown> = {},
): void {
  ctx.w.insert(events, {
    at: new Date(ctx.clock),
    type,
    sessionId: ctx.sessionId,
    entity,
    entityId: entityId === null ? null : String(entityId),
    actor: actor.label,
    principalId: actor.principalId,
    role: actor.role,
    data,
  });
}
