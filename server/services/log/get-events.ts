import { queryAll } from "@/db/query";
import { and, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { orchestrationLogs } from "@/db/schema";
import { loadSession } from "../session/load";
import { type LogEntry, toLogEntry } from "./log-row";
import { GetEventsInput } from "./schemas";
import { parseInput } from "../parse-input";

/** A session's orchestration events (`pm_bazinga`, `validator_verdict`…), newest first, payloads parsed. */
export async function getEvents(db: DbOrTx, raw: GetEventsInput): Promise<LogEntry[]> {
  const input = parseInput(GetEventsInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = orchestrationLogs;
  return (
    await queryAll(
      db
        .select()
        .from(t)
        .where(
          and(
            eq(t.sessionId, input.sessionId),
            eq(t.logType, "event"),
            input.subtype ? eq(t.eventSubtype, input.subtype) : undefined,
            input.groupId ? eq(t.groupId, input.groupId) : undefined,
          ),
        )
        .orderBy(desc(t.id))
        .limit(input.limit),
    )
  ).map(toLogEntry);
}
