import type { z } from "zod";
import type { orchestrationLogs } from "@/db/schema";
import { redactDocument, redactReferences, redactText, readJson } from "./redaction";
import type { BatchRow, LogInteractionInput, SaveEventInput, SaveReasoningInput } from "./schemas";

export type LogRow = typeof orchestrationLogs.$inferSelect;

/** A log row as readers see it: the event payload parsed back into a value. */
export type LogEntry = Omit<LogRow, "eventPayload"> & { eventPayload: unknown };

/** A stored row as readers get it. */
export function toLogEntry(row: LogRow): LogEntry {
  return { ...row, eventPayload: readJson(row.eventPayload) };
}

/** Every column of one orchestration log row, secrets already redacted, ready for any writer. */
export interface LogValues {
  sessionId: string;
  timestamp: Date;
  iteration: number | null;
  agentType: string;
  agentId: string | null;
  content: string;
  logType: "interaction" | "reasoning" | "event";
  reasoningPhase: LogRow["reasoningPhase"];
  confidenceLevel: LogRow["confidenceLevel"];
  referencesJson: string[] | null;
  redacted: boolean;
  groupId: string | null;
  eventSubtype: string | null;
  eventPayload: string | null;
  idempotencyKey: string | null;
}

type Interaction = z.output<typeof LogInteractionInput> | Extract<BatchRow, { kind: "interaction" }>;
type Reasoning = z.output<typeof SaveReasoningInput> | Extract<BatchRow, { kind: "reasoning" }>;
type Event = z.output<typeof SaveEventInput> | Extract<BatchRow, { kind: "event" }>;

// Values are built as literals with every key, never by spreading a template: this runs for every
// row of a 1000-row batch, and a spread makes each row's object many times slower to build.

/** The row for an agent interaction (`log_type = 'interaction'`). */
export function interactionValues(sessionId: string, at: Date, row: Interaction): LogValues {
  const content = redactText(row.content);
  return {
    sessionId,
    timestamp: at,
    iteration: row.iteration ?? null,
    agentType: row.agentType,
    agentId: row.agentId ?? null,
    content: content.value,
    logType: "interaction",
    reasoningPhase: null,
    confidenceLevel: null,
    referencesJson: null,
    redacted: content.redacted,
    groupId: row.groupId ?? null,
    eventSubtype: null,
    eventPayload: null,
    idempotencyKey: null,
  };
}

/** The row for a reasoning entry: content and references redacted, flagged if either was. */
export function reasoningValues(sessionId: string, at: Date, row: Reasoning): LogValues {
  const content = redactText(row.content);
  const references = redactReferences(row.references);
  return {
    sessionId,
    timestamp: at,
    iteration: row.iteration ?? null,
    agentType: row.agentType,
    agentId: row.agentId ?? null,
    content: content.value,
    logType: "reasoning",
    reasoningPhase: row.phase,
    confidenceLevel: row.confidence ?? null,
    referencesJson: references.value,
    redacted: content.redacted || references.redacted,
    groupId: row.groupId,
    eventSubtype: null,
    eventPayload: null,
    idempotencyKey: null,
  };
}

/** The row for an orchestration event: content (default `Event: <subtype>`) and payload redacted. */
export function eventValues(sessionId: string, at: Date, row: Event): LogValues {
  const content = redactText(row.content ?? `Event: ${row.subtype}`);
  const payload = row.payload === undefined ? null : redactDocument(row.payload);
  return {
    sessionId,
    timestamp: at,
    iteration: row.iteration ?? null,
    agentType: row.agentType,
    agentId: row.agentId ?? null,
    content: content.value,
    logType: "event",
    reasoningPhase: null,
    confidenceLevel: null,
    referencesJson: null,
    redacted: content.redacted || (payload?.redacted ?? false),
    groupId: row.groupId,
    eventSubtype: row.subtype,
    eventPayload: payload?.value ?? null,
    idempotencyKey: row.idempotencyKey ?? null,
  };
}
