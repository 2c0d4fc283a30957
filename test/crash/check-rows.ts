// The row-level checks, in plain SQL on a read snapshot of either engine (no Proofgate code between the
// database and the verdict): every acknowledged write is stored, and no action is stored in part.
import { TASK_MOVE_EVENTS } from "@/server/domain/event-types";
import type { TaskMove } from "@/server/domain/task-machine";
import { BATCH_MARKER, type BatchAck, type CriterionAck, type TaskAck } from "./ledger";
import type { Snapshot } from "./snapshot";
import { isTokenRow } from "./writers";

export interface RowCheck {
  failures: string[];
  /** Acknowledged writes found exactly as acknowledged. */
  verified: number;
  /** Actions (tasks' transitions, criterion updates, batches) found whole. */
  actions: number;
}

interface EventRow {
  id: number;
  type: string;
  entity_id: string | null;
  data: string | null;
}

const json = (text: string | null) => (text === null ? {} : (JSON.parse(text) as Record<string, unknown>));

function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    map.set(k, [...(map.get(k) ?? []), row]);
  }
  return map;
}

/** Each task: its transitions and its events pair up one for one, version by version; its row agrees with its last transition. */
export async function checkTasks(db: Snapshot, sessionId: string, acks: TaskAck[], out: RowCheck): Promise<void> {
  const tasks = await db.all<{ id: number; key: string; status: string; version: number }>(
    "SELECT id, key, status, version FROM tasks WHERE session_id = ?",
    sessionId,
  );
  const transitions = groupBy(
    await db.all<{ task_id: number; move: string; from_status: string | null; to_status: string }>(
      "SELECT id, task_id, move, from_status, to_status FROM task_transitions WHERE session_id = ? ORDER BY id",
      sessionId,
    ),
    (t) => t.task_id,
  );
  const events = groupBy(
    await db.all<EventRow>("SELECT id, type, entity_id, data FROM events WHERE session_id = ? AND entity = 'task' ORDER BY id", sessionId),
    (e) => Number(e.entity_id),
  );
  const byId = new Map(tasks.map((t) => [t.id, t]));
  for (const taskId of events.keys()) if (!byId.has(taskId)) out.failures.push(`events name task ${taskId}, which does not exist`);
  for (const task of tasks) {
    const history = transitions.get(task.id) ?? [];
    const trail = events.get(task.id) ?? [];
    const where = `task ${task.key} (id ${task.id})`;
    if (history.length !== trail.length) out.failures.push(`${where}: ${history.length} transitions but ${trail.length} events`);
    if (history[0]?.move !== "create" || trail[0]?.type !== "task.created")
      out.failures.push(`${where}: does not start with its create transition and task.created event`);
    history.forEach((transition, i) => {
      if (i === 0) return;
      const event = trail[i];
      const data = json(event?.data ?? null);
      const type = TASK_MOVE_EVENTS[transition.move as TaskMove];
      if (!event || event.type !== type || data.from !== transition.from_status || data.to !== transition.to_status || data.version !== i + 1) {
        out.failures.push(
          `${where}: transition ${i + 1} (${transition.move} ${transition.from_status}→${transition.to_status}) has no matching event (found ${event ? `${event.type} ${event.data}` : "none"})`,
        );
      }
    });
    if (task.version !== history.length) out.failures.push(`${where}: version ${task.version} but ${history.length} transitions`);
    if (history.length > 0 && task.status !== history.at(-1)!.to_status)
      out.failures.push(`${where}: status ${task.status} but its last transition went to ${history.at(-1)!.to_status}`);
    out.actions += history.length;
  }
  for (const ack of acks) {
    const task = byId.get(ack.taskId);
    const transition = (transitions.get(ack.taskId) ?? [])[ack.version - 1];
    if (!task || task.key !== ack.key || transition?.move !== ack.move || transition.to_status !== ack.status) {
      out.failures.push(
        `acknowledged ${ack.move} of task ${ack.key} (version ${ack.version}, ${ack.status}) is not stored (found ${transition ? `${transition.move} → ${transition.to_status}` : "nothing"})`,
      );
    } else out.verified += 1;
  }
}

/** Each criterion: one event per update, and the row equals its last claim. */
export async function checkCriteria(db: Snapshot, sessionId: string, acks: CriterionAck[], out: RowCheck): Promise<void> {
  const criteria = await db.all<{ id: number; criterion: string; status: string; actual: string | null }>(
    "SELECT id, criterion, status, actual FROM success_criteria WHERE session_id = ?",
    sessionId,
  );
  const updates = groupBy(
    await db.all<{ criterion_id: number; kind: string; to_status: string | null; actual: string | null }>(
      "SELECT id, criterion_id, kind, to_status, actual FROM criterion_updates WHERE session_id = ? ORDER BY id",
      sessionId,
    ),
    (u) => u.criterion_id,
  );
  const events = groupBy(
    await db.all<EventRow>("SELECT id, type, entity_id, data FROM events WHERE session_id = ? AND entity = 'criterion' ORDER BY id", sessionId),
    (e) => Number(e.entity_id),
  );
  for (const criterion of criteria) {
    const history = updates.get(criterion.id) ?? [];
    const trail = events.get(criterion.id) ?? [];
    const where = `criterion "${criterion.criterion}"`;
    if (history.length !== trail.length) out.failures.push(`${where}: ${history.length} updates but ${trail.length} events`);
    history.forEach((update, i) => {
      const data = json(trail[i]?.data ?? null);
      if (data.kind !== update.kind || (data.to ?? null) !== update.to_status)
        out.failures.push(`${where}: update ${i + 1} (${update.kind} → ${update.to_status}) has no matching event`);
    });
    const last = history.filter((u) => u.kind === "claim" || u.kind === "create").at(-1);
    if (last && (last.to_status !== criterion.status || last.actual !== criterion.actual)) {
      out.failures.push(`${where}: is ${criterion.status} "${criterion.actual}" but its last update says ${last.to_status} "${last.actual}"`);
    }
    out.actions += history.length;
  }
  const stored = new Set(
    [...updates.values()]
      .flat()
      .filter((u) => u.kind === "claim")
      .map((u) => `${u.criterion_id}|${u.actual}|${u.to_status}`),
  );
  for (const ack of acks) {
    if (stored.has(`${ack.criterionId}|${ack.actual}|${ack.status}`)) out.verified += 1;
    else out.failures.push(`acknowledged criterion update ${ack.actual} (${ack.status}) is not stored`);
  }
}

interface StoredBatch {
  size: number;
  logs: Map<number, number>;
  tokens: Map<number, number>;
}

/** Each batch: all its rows or none, and exactly one event naming their id ranges. */
export async function checkBatches(db: Snapshot, sessionId: string, acks: BatchAck[], out: RowCheck): Promise<void> {
  const batches = new Map<string, StoredBatch>();
  const batch = (id: string, size: number) => {
    let found = batches.get(id);
    if (!found) batches.set(id, (found = { size, logs: new Map(), tokens: new Map() }));
    if (found.size !== size) out.failures.push(`batch ${id}: rows disagree on its size (${found.size}, ${size})`);
    return found;
  };
  for (const row of await db.all<{ id: number; content: string }>(
    "SELECT id, content FROM orchestration_logs WHERE session_id = ? AND agent_type = 'crash'",
    sessionId,
  )) {
    const match = BATCH_MARKER.exec(row.content);
    if (!match) {
      out.failures.push(`log row ${row.id} has no batch marker: ${row.content.slice(0, 60)}`);
      continue;
    }
    const stored = batch(match[1]!, Number(match[3]));
    if (stored.logs.has(Number(match[2]))) out.failures.push(`batch ${match[1]}: row ${match[2]} stored twice`);
    stored.logs.set(Number(match[2]), row.id);
  }
  const sizes = new Map([...batches].map(([id, b]) => [id, b.size]));
  for (const row of await db.all<{ id: number; agent_id: string; tokens_estimated: number }>(
    "SELECT id, agent_id, tokens_estimated FROM token_usage WHERE session_id = ? AND agent_type = 'crash'",
    sessionId,
  )) {
    // A batch's token rows alone (its log rows lost) would be a half-written batch too.
    const stored = batch(row.agent_id, sizes.get(row.agent_id) ?? -1);
    if (stored.tokens.has(row.tokens_estimated)) out.failures.push(`batch ${row.agent_id}: token row ${row.tokens_estimated} stored twice`);
    stored.tokens.set(row.tokens_estimated, row.id);
  }
  const events = await db.all<EventRow>(
    "SELECT id, type, entity_id, data FROM events WHERE session_id = ? AND type IN ('logs.appended', 'tokens.logged') ORDER BY id",
    sessionId,
  );
  const eventsByFirstLog = new Map(events.map((e) => [Number(json(e.data).firstId), e]));
  for (const [id, stored] of batches) {
    const expected = Array.from({ length: stored.size }, (_, i) => i + 1);
    const missingLogs = expected.filter((r) => !isTokenRow(r) && !stored.logs.has(r));
    const missingTokens = expected.filter((r) => isTokenRow(r) && !stored.tokens.has(r));
    if (stored.size < 1 || missingLogs.length > 0 || missingTokens.length > 0) {
      out.failures.push(
        `batch ${id} is partly stored: ${stored.logs.size} log rows and ${stored.tokens.size} token rows of ${stored.size} (missing rows ${[...missingLogs, ...missingTokens].slice(0, 10).join(", ")})`,
      );
      continue;
    }
    const logIds = [...stored.logs.values()].sort((a, b) => a - b);
    const tokenIds = [...stored.tokens.values()].sort((a, b) => a - b);
    const event = eventsByFirstLog.get(logIds[0]!);
    const data = json(event?.data ?? null);
    const tokens = (data.tokens ?? {}) as Record<string, unknown>;
    if (
      !event ||
      event.type !== "logs.appended" ||
      data.count !== logIds.length ||
      data.lastId !== logIds.at(-1) ||
      tokens.count !== tokenIds.length ||
      tokens.firstId !== (tokenIds[0] ?? null) ||
      tokens.lastId !== (tokenIds.at(-1) ?? null)
    ) {
      out.failures.push(`batch ${id}: its rows are stored but its logs.appended event is ${event ? `wrong: ${event.data}` : "missing"}`);
    } else out.actions += 1;
  }
  if (events.length !== batches.size) out.failures.push(`${events.length} batch events but ${batches.size} batches stored`);
  for (const ack of acks) {
    const stored = batches.get(ack.batchId);
    const same = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => v === b[i]);
    if (
      stored &&
      same(
        [...stored.logs.values()].sort((a, b) => a - b),
        [...ack.logIds].sort((a, b) => a - b),
      ) &&
      same(
        [...stored.tokens.values()].sort((a, b) => a - b),
        [...ack.tokenIds].sort((a, b) => a - b),
      )
    )
      out.verified += 1;
    else
      out.failures.push(`acknowledged batch ${ack.batchId} (${ack.logIds.length} log rows, ${ack.tokenIds.length} token rows) is not stored as acknowledged`);
  }
}

/** The session's trigger-kept counters, each beside a recount of its rows. */
const ROLLUPS: Record<string, string> = {
  tasks_total: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id",
  tasks_pending: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'pending'",
  tasks_in_progress: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'in_progress'",
  tasks_claimed: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'claimed'",
  tasks_verified: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'verified'",
  tasks_blocked: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'blocked'",
  tasks_completed: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'completed'",
  reset_requests: "SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'blocked' AND t.reset_requested",
  criteria_total: "SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id",
  criteria_required_met:
    "SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id AND c.required_for_completion AND coalesce(c.verifier_status, c.status) = 'met'",
};

/** The session's trigger-kept counters equal a recount of its rows. */
export async function checkRollups(db: Snapshot, sessionId: string, out: RowCheck): Promise<void> {
  // Compared here, not in SQL: a comparison is 1 on SQLite and true on PostgreSQL.
  const columns = Object.entries(ROLLUPS).map(([counter, recount]) => `s.${counter} AS ${counter}, (${recount}) AS ${counter}_recount`);
  const [row] = await db.all<Record<string, number>>(`SELECT ${columns.join(", ")} FROM sessions s WHERE s.id = ?`, sessionId);
  const wrong = Object.keys(ROLLUPS).filter((counter) => !row || row[counter] !== row[`${counter}_recount`]);
  if (wrong.length > 0) {
    const detail = row ? wrong.map((counter) => `${counter} ${row[counter]}, recount ${row[`${counter}_recount`]}`).join("; ") : "no session row";
    out.failures.push(`session ${sessionId}: its rollup counters disagree with its rows (${detail})`);
  }
}
