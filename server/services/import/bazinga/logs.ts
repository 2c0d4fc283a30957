import { LOG_TYPES, type REASONING_PHASES, CONFIDENCE_LEVELS } from "@/db/schema/enums";
import { logInteraction } from "../../log/log-interaction";
import { saveEvent } from "../../log/save-event";
import { saveReasoning } from "../../log/save-reasoning";
import type { LogRow } from "../../log/log-row";
import { recordCompletionClaim } from "../completion-claim";
import { type ImportRun, type Outcome, apply, at } from "../run";
import { firstTime, int, isObject, label, parseJson, text } from "../values";
import type { Row } from "./read";
import type { SessionGate } from "./sessions";

const ENTITY = { interaction: "interactions", reasoning: "reasoning", event: "events" } as const;
const CLAIMS = "completion claims";
/** BAZINGA's events that claim (the PM's BAZINGA) or judge (the validator's verdict) a session's completion. */
const CLAIM_SUBTYPES = ["pm_bazinga", "validator_verdict"] as const;

const oneOf = <T extends string>(values: readonly T[], value: unknown): T | null => {
  const s = text(value);
  return s !== null && (values as readonly string[]).includes(s) ? (s as T) : null;
};

/**
 * Orchestration logs of every type through the log services — interactions, reasoning (phase,
 * confidence, references, group) and events — so secrets are redacted on the way in and the row
 * flagged. `pm_bazinga` and `validator_verdict` events are completion claims too: the completion
 * gate runs and its verdict is recorded beside BAZINGA's. Logs never change in BAZINGA: a row is
 * imported once. Returns the highest log id read.
 */
export function importLogs(run: ImportRun, rows: readonly Row[], gate: SessionGate, mark: number): number {
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
    if (run.book.get("log", key)) {
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
    const ctx = at(run, firstTime(gate.startOf(sessionId) ?? run.startedAt, row.timestamp));
    const common = { sessionId, agentType: label(row.agent_type) ?? "", agentId: label(row.agent_id), iteration: int(row.iteration) };
    const claimed = { verdict: null as string | null, linked: false };
    const ok = apply(run, entity, key, (): Outcome => {
      let saved: LogRow;
      let outcome: Outcome = "imported";
      if (logType === "reasoning") {
        saved = saveReasoning(ctx, {
          ...common,
          // Checked by the service: a missing or unknown phase is refused, naming the field.
          phase: text(row.reasoning_phase) as (typeof REASONING_PHASES)[number],
          content: String(row.content ?? ""),
          groupId: label(row.group_id) ?? "global",
          confidence: oneOf(CONFIDENCE_LEVELS, row.confidence_level),
          references: referencesOf(row.references_json),
        });
      } else if (logType === "event") {
        const result = saveEvent(ctx, {
          ...common,
          agentType: common.agentType || "system",
          subtype: subtype ?? "",
          payload: payloadOf(row.event_payload),
          groupId: label(row.group_id) ?? "global",
          idempotencyKey: label(row.idempotency_key),
          content: String(row.content ?? ""),
        });
        saved = result.row;
        if (!result.created) {
          outcome = "unchanged";
          claimed.linked = true;
        } else claimed.verdict = claimOf(ctx, sessionId, subtype, row.event_payload);
      } else {
        saved = logInteraction(ctx, { ...common, content: String(row.content ?? ""), groupId: label(row.group_id) });
      }
      run.book.put("log", key, { targetId: saved.id, sessionId }, ctx.now!());
      return outcome;
    });
    if (claim) {
      if (!ok) run.tally.skip(CLAIMS, key, "its event was not imported");
      else run.tally.count(CLAIMS, claimed.linked ? "unchanged" : "imported");
    }
  }
  return mark;
}

/** For a claim event: record the gate's verdict beside BAZINGA's, and return what BAZINGA claimed. */
function claimOf(ctx: ReturnType<typeof at>, sessionId: string, subtype: string | null, payloadText: unknown): string | null {
  const source = CLAIM_SUBTYPES.find((s) => s === subtype);
  if (!source) return null;
  const payload = parseJson(payloadText);
  const said = isObject(payload) ? (text(payload.verdict) ?? text(payload.status)) : null;
  const claimedVerdict = said ?? (source === "pm_bazinga" ? "BAZINGA" : "unknown");
  recordCompletionClaim(ctx, { sessionId, source, claimedVerdict });
  return claimedVerdict;
}

function referencesOf(value: unknown): string[] | null {
  const raw = text(value);
  if (raw === null) return null;
  const parsed = parseJson(raw);
  if (Array.isArray(parsed)) {
    const list = parsed.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).map((s) => s.trim()).filter((s) => s.length > 0);
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
