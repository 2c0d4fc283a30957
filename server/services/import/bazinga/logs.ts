import { LOG_TYPES } from "@/server/domain/vocabulary";
import { recordCompletionClaim } from "../completion-claim";
import { importTimedLogBatch } from "../log-batch";
import type { BatchRow } from "../../log/schemas";
import { type ImportRun, type Outcome, apply, at } from "../run";
import { firstTime, int, isObject, label, parseJson, text } from "../values";
import { type AppendBatcher, appendKeyOf } from "./append";
import type { Row } from "./read";
import type { SessionGate } from "./sessions";

const ENTITY = { interaction: "interactions", reasoning: "reasoning", event: "events" } as const;
const CLAIMS = "completion claims";
/** BAZINGA's events that claim (the PM's BAZINGA) or judge (the validator's verdict) a session's completion. */
const CLAIM_SUBTYPES = ["pm_bazinga", "validator_verdict"] as const;

/** A BAZINGA log row in the shape of a log batch row (`log.batch`), which the log service checks and redacts. */
function batchRowOf(row: Row, logType: string): Record<string, unknown> {
  const common = { agentType: label(row.agent_type) ?? "", agentId: label(row.agent_id), iteration: int(row.iteration) };
  const content = String(row.content ?? "");
  if (logType === "reasoning") {
    return {
      kind: "reasoning",
      ...common,
      // Checked by the service: a missing or unknown phase is refused, naming the field.
      phase: text(row.reasoning_phase) ?? undefined,
      content,
      groupId: label(row.group_id) ?? "global",
      confidence: text(row.confidence_level),
      references: referencesOf(row.references_json),
    };
  }
  if (logType === "event") {
    return {
      kind: "event",
      ...common,
      agentType: common.agentType || "system",
      subtype: text(row.event_subtype) ?? "",
      payload: payloadOf(row.event_payload),
      groupId: label(row.group_id) ?? "global",
      idempotencyKey: label(row.idempotency_key),
      content,
    };
  }
  return { kind: "interaction", ...common, content, groupId: label(row.group_id) };
}

/**
 * Orchestration logs of every type through the log services — interactions, reasoning (phase,
 * confidence, references, group) and events — so secrets are redacted on the way in and the row
 * flagged, each row at the time BAZINGA wrote it. `pm_bazinga` and `validator_verdict` events are
 * completion claims too: the completion gate runs on the session as imported so far and its
 * verdict is recorded beside BAZINGA's. Logs never change in BAZINGA: each row is imported once.
 * Returns the highest log id read.
 */
export async function importLogs(run: ImportRun, rows: readonly Row[], gate: SessionGate, mark: number, batcher: AppendBatcher): Promise<number> {
  const recorded = await run.book.recorded("log", rows.map(appendKeyOf));
  for (const row of rows) {
    const id = int(row.id) ?? 0;
    mark = Math.max(mark, id);
    const logType = text(row.log_type) ?? "interaction";
    const entity = ENTITY[logType as keyof typeof ENTITY] ?? "interactions";
    run.tally.read(entity);
    const sessionId = text(row.session_id) ?? "";
    const key = `${sessionId}|${id}`;
    const subtype = text(row.event_subtype);
    const claim = logType === "event" && CLAIM_SUBTYPES.some((s) => s === subtype);
    if (claim) run.tally.read(CLAIMS);
    const done = (outcome: "unchanged" | { skip: string }) => {
      for (const e of claim ? [entity, CLAIMS] : [entity]) {
        if (outcome === "unchanged") run.tally.count(e, "unchanged");
        else run.tally.skip(e, key, outcome.skip);
      }
    };
    if (recorded.has(key)) {
      done("unchanged");
      continue;
    }
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      done({ skip: refusal });
      continue;
    }
    if (!(LOG_TYPES as readonly string[]).includes(logType)) {
      done({ skip: `log_type ${JSON.stringify(logType)} is not one of ${LOG_TYPES.join(", ")}` });
      continue;
    }
    const time = firstTime(gate.startOf(sessionId) ?? run.startedAt, row.timestamp);
    if (!claim) {
      await batcher.add({ entity, recordKind: "log", key, sessionId, at: time, row: batchRowOf(row, logType) });
      continue;
    }
    // A claim judges the session as it stands: write what came before it first.
    await batcher.flush();
    let linked = false;
    const ok = await apply(run, entity, key, async (): Promise<Outcome> => {
      const ctx = at(run, time);
      const [saved] = (await importTimedLogBatch(ctx, { sessionId, rows: [{ at: time, row: batchRowOf(row, logType) as BatchRow }] })).ids;
      if (saved!.created)
        await recordCompletionClaim(ctx, {
          sessionId,
          source: subtype as (typeof CLAIM_SUBTYPES)[number],
          claimedVerdict: claimedVerdictOf(subtype, row.event_payload),
        });
      else linked = true;
      await run.book.put("log", key, { targetId: saved!.id, sessionId }, time);
      return saved!.created ? "imported" : "unchanged";
    });
    if (!ok) run.tally.skip(CLAIMS, key, "its event was not imported");
    else run.tally.count(CLAIMS, linked ? "unchanged" : "imported");
  }
  return mark;
}

/** What BAZINGA said: the validator's verdict from its payload; the PM's claim is BAZINGA itself. */
function claimedVerdictOf(subtype: string | null, payloadText: unknown): string {
  const payload = parseJson(payloadText);
  const said = isObject(payload) ? (text(payload.verdict) ?? text(payload.status)) : null;
  return said ?? (subtype === "pm_bazinga" ? "BAZINGA" : "unknown");
}

function referencesOf(value: unknown): string[] | null {
  const raw = text(value);
  if (raw === null) return null;
  const parsed = parseJson(raw);
  if (Array.isArray(parsed)) {
    const list = parsed
      .map((item) => (typeof item === "string" ? item : JSON.stringify(item)))
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    return list.length > 0 ? list : null;
  }
  return [raw];
}

/** The payload as JSON text; text that is not JSON is kept as a JSON string rather than dropped. */
function payloadOf(value: unknown): string | undefined {
  const raw = text(value);
  if (raw === null) return undefined;
  return parseJson(raw) === undefined ? JSON.stringify(raw) : raw;
}
