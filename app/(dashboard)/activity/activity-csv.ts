/**
 * The audit log as CSV: one record per event, the columns of the `events` table plus the session's
 * source and the one-line summary, written with the analytics page's RFC 4180 writer (formula-safe:
 * actors, summaries and data are written by agents).
 */
import { csvField, csvFileName, toCsv } from "../analytics/csv";
import type { ActivityView } from "./activity-view";

export interface CsvEvent {
  id: number;
  at: Date;
  type: string;
  sessionId: string | null;
  source: string | null;
  entity: string;
  entityId: string | null;
  actor: string;
  principalId: string | null;
  role: string | null;
  /** `token:<id> <name>` when a person acted through a personal API token. */
  via: string | null;
  summary: string;
  data: Record<string, unknown> | null;
}

export const CSV_HEADER = ["id", "at", "type", "session", "source", "entity", "entity_id", "actor", "principal", "role", "via", "summary", "data"] as const;

function record(event: CsvEvent): (string | number | null)[] {
  return [
    event.id,
    event.at.toISOString(),
    event.type,
    event.sessionId,
    event.source,
    event.entity,
    event.entityId,
    event.actor,
    event.principalId,
    event.role,
    event.via,
    event.summary,
    event.data === null ? null : JSON.stringify(event.data),
  ];
}

/** The header record (with a byte-order mark, so spreadsheets read UTF-8), for the start of the file. */
export function csvStart(): string {
  return `\uFEFF${toCsv(CSV_HEADER, [])}`;
}

/** One page of events as CSV records (no header), each CRLF-terminated. */
export function csvRecords(events: readonly CsvEvent[]): string {
  return events.map((event) => `${record(event).map(csvField).join(",")}\r\n`).join("");
}

/** `proofgate-activity-task-claimed-2026-11-01.csv`: the file name says what was filtered. */
export function activityCsvName(view: ActivityView): string {
  return csvFileName("proofgate", "activity", view.type, view.actor, view.session, view.source, view.from, view.to);
}
