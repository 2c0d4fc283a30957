import { CRITERION_STATUSES, type CriterionInput, type CriterionStatus } from "@/server/domain/criteria";
import { saveCriteria } from "../../criteria/save";
import { saveMigratedCriteria } from "../migrated-criteria";
import { type ImportRun, apply, at } from "../run";
import { firstTime, isObject, parseJson, text } from "../values";
import type { Row } from "./read";
import type { SessionGate } from "./sessions";

interface CriterionState {
  status: CriterionStatus;
  actual: string | null;
  evidence: string | null;
  required: boolean;
}

function statusOf(value: unknown): CriterionStatus | null {
  const status = text(value) ?? "pending";
  return (CRITERION_STATUSES as readonly string[]).includes(status) ? (status as CriterionStatus) : null;
}

const required = (value: unknown) => !(value === 0 || value === false || value === "0" || value === "false");

const item = (criterion: string, s: CriterionState): CriterionInput => ({
  criterion,
  status: s.status,
  actual: s.actual,
  evidence: s.evidence,
  requiredForCompletion: s.required,
});

/**
 * BAZINGA's success criteria with their status, actual and evidence, through the criteria service
 * (000's UPSERT: one row per criterion, its text never changing). A later change in BAZINGA is
 * saved again, which appends the criterion's history row.
 */
export async function importCriteria(run: ImportRun, rows: readonly Row[], gate: SessionGate): Promise<void> {
  for (const row of rows) {
    run.tally.read("success criteria");
    const sessionId = text(row.session_id) ?? "";
    const criterion = text(row.criterion) ?? "";
    const key = `${sessionId}|${criterion}`;
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      run.tally.skip("success criteria", key, refusal);
      continue;
    }
    const status = statusOf(row.status);
    if (!status) {
      run.tally.skip("success criteria", key, `status ${JSON.stringify(row.status)} is not one of ${CRITERION_STATUSES.join(", ")}`);
      continue;
    }
    const state: CriterionState = { status, actual: text(row.actual), evidence: text(row.evidence), required: required(row.required_for_completion) };
    const record = await run.book.get("criterion", key);
    if (record && record.state === JSON.stringify(state)) {
      run.tally.count("success criteria", "unchanged");
      continue;
    }
    const when = record ? firstTime(run.startedAt, row.updated_at, row.created_at) : firstTime(run.startedAt, row.created_at);
    await apply(run, "success criteria", key, async () => {
      const [saved] = await saveCriteria(at(run, when), { sessionId, criteria: [item(criterion, state)] });
      await run.book.put("criterion", key, { targetId: saved!.id, sessionId, state }, when);
      return record ? "updated" : "imported";
    });
  }
}

/** The criteria a session's criteria table has (`session|criterion`): the pm state's copies of these are not migrated. */
export function criteriaInTable(tableCriteria: readonly Row[]): Set<string> {
  return new Set(tableCriteria.map((row) => `${text(row.session_id)}|${text(row.criterion)}`));
}

/**
 * Sessions from before BAZINGA had a criteria table kept their criteria only in the `pm` state
 * snapshot (000). Every criterion of a session's latest `pm` state that its criteria table lacks
 * is saved as a success criterion marked `migrated`; a later pm state that changes one updates it.
 */
export async function importMigratedCriteria(run: ImportRun, pmStates: readonly Row[], inTable: ReadonlySet<string>, gate: SessionGate): Promise<void> {
  for (const snapshot of pmStates) {
    const sessionId = text(snapshot.session_id) ?? "";
    if (gate.refusal(sessionId)) continue;
    const data = parseJson(snapshot.state_data);
    const list = isObject(data) ? data.success_criteria : undefined;
    if (!Array.isArray(list)) continue;
    const when = firstTime(gate.startOf(sessionId) ?? run.startedAt, snapshot.timestamp);
    for (const [i, entry] of list.entries()) {
      const fields = isObject(entry) ? entry : { criterion: entry };
      const criterion = text(fields.criterion) ?? "";
      const key = `${sessionId}|${criterion}`;
      if (inTable.has(key)) continue;
      run.tally.read("migrated criteria");
      const status = statusOf(fields.status);
      if (criterion === "" || !status) {
        run.tally.skip(
          "migrated criteria",
          `${sessionId}|pm success_criteria[${i}]`,
          criterion === "" ? "it has no criterion text" : `status ${JSON.stringify(fields.status)} is not one of ${CRITERION_STATUSES.join(", ")}`,
        );
        continue;
      }
      const state: CriterionState = {
        status,
        actual: text(fields.actual),
        evidence: text(fields.evidence),
        required: required(fields.required_for_completion),
      };
      const record = await run.book.get("migrated_criterion", key);
      if (record && record.state === JSON.stringify(state)) {
        run.tally.count("migrated criteria", "unchanged");
        continue;
      }
      await apply(run, "migrated criteria", key, async () => {
        const [saved] = await saveMigratedCriteria(at(run, when), { sessionId, criteria: [item(criterion, state)] });
        await run.book.put("migrated_criterion", key, { targetId: saved!.id, sessionId, state }, when);
        return record ? "updated" : "imported";
      });
    }
  }
}
