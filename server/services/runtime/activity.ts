import { queryAll } from "@/db/query";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { events, runtimeSessionLinks, runtimeSessions } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { loadSession } from "../session/load";

/** Held and let-through stops shown per session (newest first). */
export const MAX_STOPS_SHOWN = 50;

export interface RuntimeStop {
  id: number;
  at: Date;
  /** `held`: the stop was refused; `unverified`: it went through with the gate rejecting. */
  kind: "held" | "unverified";
  actor: string;
  /** Stop or SubagentStop. */
  event: string | null;
  agentType: string | null;
  /** A held stop's number in its run, and the cap. */
  block: number | null;
  maxBlocks: number | null;
  /** Why an unverified stop went through: the cap (`max_blocks`) or another hook's continuation (`stop_hook_active`). */
  cause: string | null;
  /** The gate's reasons at the time, as the agent was given them. */
  reasons: string[];
  fixes: (string | null)[];
}

export interface SessionRuntimeActivity {
  runtimeSessions: { runtime: string; externalId: string; cwd: string | null; source: string; firstSeenAt: Date; lastSeenAt: Date; linkedAt: Date }[];
  stops: RuntimeStop[];
}

/** The runtime session a ledger session is linked to, and each stop of it that was held or let through unverified. */
export async function sessionRuntimeActivity(db: DbOrTx, input: { sessionId: string }): Promise<SessionRuntimeActivity> {
  await loadSession(db, input.sessionId);
  const linked = await queryAll(
    db
      .select({
        runtime: runtimeSessions.runtime,
        externalId: runtimeSessions.externalId,
        cwd: runtimeSessions.cwd,
        source: runtimeSessions.source,
        firstSeenAt: runtimeSessions.firstSeenAt,
        lastSeenAt: runtimeSessions.lastSeenAt,
        linkedAt: runtimeSessionLinks.linkedAt,
      })
      .from(runtimeSessionLinks)
      .innerJoin(runtimeSessions, eq(runtimeSessions.id, runtimeSessionLinks.runtimeSessionId))
      .where(eq(runtimeSessionLinks.sessionId, input.sessionId)),
  );
  const rows = await queryAll(
    db
      .select({ id: events.id, at: events.at, type: events.type, actor: events.actor, data: events.data })
      .from(events)
      .where(and(eq(events.sessionId, input.sessionId), inArray(events.type, [EVENT_TYPES.runtimeStopHeld, EVENT_TYPES.runtimeStopUnverified])))
      .orderBy(desc(events.id))
      .limit(MAX_STOPS_SHOWN),
  );
  return { runtimeSessions: linked, stops: rows.map(toStop) };
}

function toStop(row: { id: number; at: Date; type: string; actor: string; data: unknown }): RuntimeStop {
  const d = (row.data ?? {}) as Record<string, unknown>;
  const str = (key: string) => (typeof d[key] === "string" ? (d[key] as string) : null);
  const num = (key: string) => (typeof d[key] === "number" ? (d[key] as number) : null);
  const list = (key: string) => (Array.isArray(d[key]) ? (d[key] as unknown[]) : []);
  return {
    id: row.id,
    at: row.at,
    kind: row.type === EVENT_TYPES.runtimeStopHeld ? "held" : "unverified",
    actor: row.actor,
    event: str("event"),
    agentType: str("agentType"),
    block: num("block"),
    maxBlocks: num("maxBlocks"),
    cause: str("cause"),
    reasons: list("reasons").filter((r): r is string => typeof r === "string"),
    fixes: list("fixes").map((f) => (typeof f === "string" ? f : null)),
  };
}
