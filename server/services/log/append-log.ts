import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import type { Tx } from "@/db/client";
import { orchestrationLogs } from "@/db/schema";
import { type ServiceContext, appendEvent } from "../context";
import type { LogRow, LogValues } from "./log-row";

/** Insert one orchestration log row and the `logs.appended` event naming it. */
export async function appendLogRow(tx: Tx, ctx: ServiceContext, values: LogValues): Promise<LogRow> {
  const row = await queryGet(tx.insert(orchestrationLogs).values(values).returning());
  await appendEvent(tx, ctx, {
    type: EVENT_TYPES.logsAppended,
    sessionId: row.sessionId,
    entity: "log",
    entityId: row.id,
    data: { count: 1, firstId: row.id, lastId: row.id, logType: row.logType, agentType: row.agentType, redacted: row.redacted },
  });
  return row;
}
