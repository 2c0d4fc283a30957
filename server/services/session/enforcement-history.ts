import { queryAll } from "@/db/query";
import { and, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { events } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ENFORCEMENTS } from "@/server/domain/vocabulary";
import type { Enforcement } from "@/server/domain/task-machine";
import { parseInput } from "../parse-input";
import { loadSession } from "./load";
import { EnforcementHistoryInput } from "./schemas";

export interface EnforcementSwitch {
  id: number;
  at: Date;
  actor: string;
  role: string | null;
  from: Enforcement | null;
  to: Enforcement | null;
  reason: string | null;
}

/**
 * A session's enforcement switches, newest first: who switched it, when, from what to what and
 * why. The `session.enforcement_changed` events are the record (written in the switch's own
 * transaction), so this reads them rather than keeping a second copy.
 */
export async function listEnforcementSwitches(db: DbOrTx, raw: EnforcementHistoryInput): Promise<EnforcementSwitch[]> {
  const input = parseInput(EnforcementHistoryInput, raw, "session.invalid_input");
  await loadSession(db, input.sessionId);
  const rows = await queryAll(
    db
      .select({ id: events.id, at: events.at, actor: events.actor, role: events.role, data: events.data })
      .from(events)
      .where(and(eq(events.sessionId, input.sessionId), eq(events.type, EVENT_TYPES.sessionEnforcementChanged)))
      .orderBy(desc(events.id))
      .limit(input.limit),
  );
  return rows.map(({ data, ...row }) => ({
    ...row,
    from: enforcementOf(data?.from),
    to: enforcementOf(data?.to),
    reason: typeof data?.reason === "string" ? data.reason : null,
  }));
}

const enforcementOf = (value: unknown): Enforcement | null => ((ENFORCEMENTS as readonly unknown[]).includes(value) ? (value as Enforcement) : null);
