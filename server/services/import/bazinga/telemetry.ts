import { createHash } from "node:crypto";
import { saveDecision } from "../../log/save-decision";
import { saveDevelopmentPlan } from "../../log/save-development-plan";
import { saveSkillOutput } from "../../log/save-skill-output";
import { saveState } from "../../log/save-state";
import { type ImportRun, apply, at } from "../run";
import { firstTime, int, isObject, label, parseJson, text } from "../values";
import { type AppendBatcher, appendKeyOf } from "./append";
import type { Row } from "./read";
import type { SessionGate } from "./sessions";

/** What a snapshot-like row looked like when imported: a changed one is imported again as a new version. */
export const fingerprint = (row: Row) => JSON.stringify({ t: row.timestamp ?? null, n: row.data_length ?? null });

/** Append-only rows (tokens, decisions): imported once each. Returns the highest id read. */
async function appendOnly(
  run: ImportRun,
  entity: string,
  recordKind: string,
  rows: readonly Row[],
  gate: SessionGate,
  mark: number,
  save: (row: Row, when: Date) => Promise<{ id: number }>,
): Promise<number> {
  const recorded = await run.book.recorded(recordKind, rows.map(appendKeyOf));
  for (const row of rows) {
    const id = int(row.id) ?? 0;
    mark = Math.max(mark, id);
    run.tally.read(entity);
    const sessionId = text(row.session_id) ?? "";
    const key = `${sessionId}|${id}`;
    if (recorded.has(key)) {
      run.tally.count(entity, "unchanged");
      continue;
    }
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      run.tally.skip(entity, key, refusal);
      continue;
    }
    const when = firstTime(gate.startOf(sessionId) ?? run.startedAt, row.timestamp);
    await apply(run, entity, key, async () => {
      const saved = await save(row, when);
      await run.book.put(recordKind, key, { targetId: saved.id, sessionId }, when);
      return "imported";
    });
  }
  return mark;
}

/** Token rows, in batches through the timed log batch service. Returns the highest id read. */
export async function importTokens(run: ImportRun, rows: readonly Row[], gate: SessionGate, mark: number, batcher: AppendBatcher): Promise<number> {
  const recorded = await run.book.recorded("tokens", rows.map(appendKeyOf));
  for (const row of rows) {
    const id = int(row.id) ?? 0;
    mark = Math.max(mark, id);
    run.tally.read("token usage");
    const sessionId = text(row.session_id) ?? "";
    const key = `${sessionId}|${id}`;
    if (recorded.has(key)) {
      run.tally.count("token usage", "unchanged");
      continue;
    }
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      run.tally.skip("token usage", key, refusal);
      continue;
    }
    const when = firstTime(gate.startOf(sessionId) ?? run.startedAt, row.timestamp);
    await batcher.add({
      entity: "token usage",
      recordKind: "tokens",
      key,
      sessionId,
      at: when,
      row: { kind: "tokens", agentType: label(row.agent_type) ?? "", agentId: label(row.agent_id), tokens: int(row.tokens_estimated) ?? -1 },
    });
  }
  await batcher.flush();
  return mark;
}

export async function importDecisions(run: ImportRun, rows: readonly Row[], gate: SessionGate, mark: number): Promise<number> {
  return appendOnly(run, "decisions", "decision", rows, gate, mark, async (row, when) =>
    saveDecision(at(run, when), {
      sessionId: text(row.session_id) ?? "",
      decisionType: label(row.decision_type) ?? "",
      data: String(row.decision_data ?? ""),
      iteration: int(row.iteration),
    }),
  );
}

/**
 * State snapshots and skill outputs: BAZINGA overwrites them in place (one current row per
 * session, type and group), Proofgate keeps every version. A row new or changed since the last
 * import is saved (a new version, redacted); an unchanged one is not read again.
 */
export async function importVersioned(
  run: ImportRun,
  table: "state_snapshots" | "skill_outputs",
  rows: readonly Row[],
  readCount: number,
  gate: SessionGate,
): Promise<void> {
  const entity = table === "state_snapshots" ? "state snapshots" : "skill outputs";
  const kind = table === "state_snapshots" ? "state" : "skill_output";
  run.tally.read(entity, readCount);
  for (let i = rows.length; i < readCount; i++) run.tally.count(entity, "unchanged");
  for (const row of rows) {
    const sessionId = text(row.session_id) ?? "";
    const key = `${sessionId}|${int(row.id)}`;
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      run.tally.skip(entity, key, refusal);
      continue;
    }
    const record = await run.book.get(kind, key);
    const when = firstTime(gate.startOf(sessionId) ?? run.startedAt, row.timestamp);
    const data = String(row.data ?? "");
    await apply(run, entity, key, async () => {
      const saved =
        table === "state_snapshots"
          ? await saveState(at(run, when), { sessionId, stateType: text(row.state_type) as "pm", groupId: label(row.group_id) ?? "global", data })
          : await saveSkillOutput(at(run, when), {
              sessionId,
              skillName: label(row.skill_name) ?? "",
              data,
              agentType: label(row.agent_type),
              groupId: label(row.group_id),
              iteration: Math.max(1, int(row.iteration) ?? 1),
            });
      await run.book.put(kind, key, { targetId: saved.id, sessionId, state: JSON.parse(fingerprint(row)) }, when);
      return record ? "updated" : "imported";
    });
  }
}

/** A session's development plan: saved when new or changed (the service replaces it, keeping when it was created). */
export async function importPlans(run: ImportRun, rows: readonly Row[], gate: SessionGate): Promise<void> {
  for (const row of rows) {
    run.tally.read("development plans");
    const sessionId = text(row.session_id) ?? "";
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      run.tally.skip("development plans", sessionId, refusal);
      continue;
    }
    const metadata = parseJson(row.metadata);
    const input = {
      sessionId,
      originalPrompt: String(row.original_prompt ?? ""),
      planText: String(row.plan_text ?? ""),
      phases: parseJson(row.phases) ?? String(row.phases ?? ""),
      currentPhase: int(row.current_phase),
      totalPhases: int(row.total_phases) ?? undefined,
      metadata: isObject(metadata) ? metadata : null,
    };
    const state = createHash("sha256").update(JSON.stringify(input)).digest("hex");
    const record = await run.book.get("plan", sessionId);
    if (record && record.state === JSON.stringify(state)) {
      run.tally.count("development plans", "unchanged");
      continue;
    }
    const when = record ? firstTime(run.startedAt, row.updated_at, row.created_at) : firstTime(run.startedAt, row.created_at);
    await apply(run, "development plans", sessionId, async () => {
      const saved = await saveDevelopmentPlan(at(run, when), input as Parameters<typeof saveDevelopmentPlan>[1]);
      await run.book.put("plan", sessionId, { targetId: saved.id, sessionId, state }, when);
      return record ? "updated" : "imported";
    });
  }
}
