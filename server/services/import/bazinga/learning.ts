import { recordErrorPattern } from "../../learning/error-patterns";
import { saveConsumption } from "../../learning/consumption";
import { recordStrategy } from "../../learning/strategies";
import { type ImportRun, apply, at } from "../run";
import { firstTime, int, parseTime, text } from "../values";
import type { BazingaState, Row } from "./read";
import type { SessionGate } from "./sessions";

const num = (value: unknown, fallback: number) =>
  typeof value === "number" && Number.isFinite(value)
    ? value
    : typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))
      ? Number(value)
      : fallback;

/** Import a project-level row when it is new, or again when what BAZINGA holds of it changed. */
async function sync(
  run: ImportRun,
  entity: string,
  bookEntity: string,
  key: string,
  state: Record<string, unknown>,
  when: Date,
  write: () => Promise<string | number>,
): Promise<void> {
  const record = await run.book.get(bookEntity, key);
  const stateText = JSON.stringify(state);
  if (record && record.state === stateText) {
    run.tally.count(entity, "unchanged");
    return;
  }
  await apply(run, entity, key, async () => {
    const targetId = await write();
    await run.book.put(bookEntity, key, { targetId, sessionId: null, state }, when);
    return record ? "updated" : "imported";
  });
}

/**
 * BAZINGA's context-engineering tables (v19): error patterns and strategies belong to a project and
 * are copied as stored (hashes and ids kept, text redacted), again whenever their counts change;
 * consumption records belong to a session and name a context package, mapped to the ledger's id.
 */
export async function importLearning(
  run: ImportRun,
  pass: Pick<BazingaState, "errorPatterns" | "strategies" | "consumption">,
  gate: SessionGate,
): Promise<void> {
  for (const row of pass.errorPatterns) {
    run.tally.read("error patterns");
    const projectId = text(row.project_id) ?? "";
    const hash = text(row.pattern_hash) ?? "";
    const lastSeen = firstTime(run.startedAt, row.last_seen);
    const state = {
      confidence: num(row.confidence, 0.5),
      occurrences: num(row.occurrences, 1),
      solution: text(row.solution),
      lastSeen: lastSeen.toISOString(),
      ttlDays: num(row.ttl_days, 90),
    };
    await sync(run, "error patterns", "error_pattern", `${projectId}|${hash}`, state, lastSeen, async () => {
      const saved = await recordErrorPattern(at(run, lastSeen), {
        patternHash: hash,
        projectId,
        signatureJson: text(row.signature_json) ?? "{}",
        solution: text(row.solution) ?? "",
        confidence: state.confidence,
        occurrences: state.occurrences,
        lang: text(row.lang),
        lastSeen,
        createdAt: firstTime(lastSeen, row.created_at),
        ttlDays: state.ttlDays,
      });
      return `${saved.projectId}|${saved.patternHash}`;
    });
  }

  for (const row of pass.strategies) {
    run.tally.read("strategies");
    const id = text(row.strategy_id) ?? "";
    const lastSeen = firstTime(run.startedAt, row.last_seen);
    const state = { helpfulness: num(row.helpfulness, 0), insight: text(row.insight), topic: text(row.topic), lastSeen: lastSeen.toISOString() };
    await sync(run, "strategies", "strategy", id, state, lastSeen, async () => {
      const saved = await recordStrategy(at(run, lastSeen), {
        strategyId: id,
        projectId: text(row.project_id) ?? "",
        topic: text(row.topic) ?? "general",
        insight: text(row.insight) ?? "",
        helpfulness: state.helpfulness,
        lang: text(row.lang),
        framework: text(row.framework),
        lastSeen,
        createdAt: firstTime(lastSeen, row.created_at),
      });
      return saved.strategyId;
    });
  }

  for (const row of pass.consumption) await importConsumption(run, row, gate);
}

async function importConsumption(run: ImportRun, row: Row, gate: SessionGate): Promise<void> {
  run.tally.read("consumption scope");
  const key = text(row.scope_id) ?? "";
  if (await run.book.get("consumption_scope", key)) {
    run.tally.count("consumption scope", "unchanged");
    return;
  }
  const sessionId = text(row.session_id) ?? "";
  const refusal = gate.refusal(sessionId);
  if (refusal) {
    run.tally.skip("consumption scope", key, refusal);
    return;
  }
  const sourcePackage = int(row.package_id) ?? 0;
  // The package's id in the ledger; a record whose package BAZINGA no longer has keeps BAZINGA's id.
  const mapped = await run.book.get("context_package", `${sessionId}|${sourcePackage}`);
  const when = parseTime(row.consumed_at) ?? gate.startOf(sessionId) ?? run.startedAt;
  await apply(run, "consumption scope", key, async () => {
    const saved = await saveConsumption(at(run, when), {
      sessionId,
      groupId: text(row.group_id) ?? "",
      agentType: text(row.agent_type) ?? "",
      iteration: Math.max(0, int(row.iteration) ?? 0),
      packageId: mapped ? Number(mapped.targetId) : sourcePackage,
    });
    await run.book.put("consumption_scope", key, { targetId: saved.scopeId, sessionId, state: { packageMapped: Boolean(mapped) } }, when);
    return "imported";
  });
}
