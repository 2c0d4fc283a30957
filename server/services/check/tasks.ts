import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { rawAll } from "@/db/query";
import { MOVE_RULES, type TaskStatus } from "@/server/domain/task-machine";
import { EVENT_TYPES } from "@/server/domain/event-types";
import type { FindingCollector } from "./findings";

interface TaskRow {
  id: number;
  session_id: string;
  key: string;
  status: TaskStatus;
  verification: "verified" | "none" | null;
  claimed_by: string | null;
  verified_by: string | null;
  enforcement: "enforce" | "observe";
}

interface TransitionRow {
  id: number;
  task_id: number;
  move: string;
  from_status: TaskStatus | null;
  to_status: TaskStatus;
  actor: string;
  principal_id: string | null;
  role: string | null;
  claimant: string | null;
}

/** The local operator is one identity shared by every agent on a machine: only labels tell them apart. */
const comparable = (principal: string | null) => (principal === null || principal === "operator" ? null : principal);

/**
 * Every task's history explains its status (a chain of transitions ending where the task is), and
 * every verified or completed task was verified by a move of a verifier who is not its claimant —
 * or, where an observed orchestrator skipped verification, is flagged `verification = 'none'` with
 * its `unverified_completion` event.
 */
export async function checkTasks(db: DbOrTx, found: FindingCollector): Promise<void> {
  const flagged = new Set(
    (
      await rawAll<{ entity_id: string }>(db, sql`SELECT DISTINCT entity_id FROM events WHERE type = ${EVENT_TYPES.unverifiedCompletion} AND entity = 'task'`)
    ).map((row) => row.entity_id),
  );
  const history = new Map<number, TransitionRow[]>();
  for (const row of await rawAll<TransitionRow>(
    db,
    sql`SELECT id, task_id, move, from_status, to_status, actor, principal_id, role, claimant FROM task_transitions ORDER BY task_id, id`,
  )) {
    const list = history.get(row.task_id);
    if (list) list.push(row);
    else history.set(row.task_id, [row]);
  }
  const tasks = await rawAll<TaskRow>(
    db,
    sql`SELECT t.id, t.session_id, t.key, t.status, t.verification, t.claimed_by, t.verified_by, s.enforcement FROM tasks t JOIN sessions s ON s.id = t.session_id ORDER BY t.id`,
  );
  found.examined("tasks", tasks.length);
  found.examined(
    "task_transitions",
    [...history.values()].reduce((n, list) => n + list.length, 0),
  );
  for (const task of tasks) {
    const transitions = history.get(task.id) ?? [];
    checkHistory(task, transitions, found);
    if (task.status === "verified" || task.status === "completed") checkVerification(task, transitions, flagged, found);
  }
}

function where(task: TaskRow) {
  return { table: "tasks", id: task.id, sessionId: task.session_id };
}

function name(task: TaskRow): string {
  return `task ${task.key} (${task.session_id})`;
}

function checkHistory(task: TaskRow, transitions: TransitionRow[], found: FindingCollector): void {
  if (transitions.length === 0) {
    found.add("task.history", where(task), `${name(task)} is ${task.status} but has no transitions`);
    return;
  }
  let previous: TaskStatus | null = null;
  for (const [i, t] of transitions.entries()) {
    if (i > 0 && t.from_status !== previous) {
      found.add(
        "task.history",
        where(task),
        `${name(task)}: transition ${t.id} (${t.move}) starts from ${String(t.from_status)}, but the one before ended at ${String(previous)}`,
      );
      return;
    }
    previous = t.to_status;
  }
  if (previous !== task.status) found.add("task.history", where(task), `${name(task)} is ${task.status}, but its last transition ended at ${String(previous)}`);
}

function checkVerification(task: TaskRow, transitions: TransitionRow[], flagged: Set<string>, found: FindingCollector): void {
  if (task.verification === "none") {
    if (task.enforcement !== "observe")
      found.add("task.unverified_flagged", where(task), `${name(task)} is ${task.status} with verification 'none' in an enforce session`);
    else if (task.status === "completed" && !flagged.has(String(task.id)))
      found.add("task.unverified_flagged", where(task), `${name(task)} was completed unverified but has no unverified_completion event`);
    return;
  }
  if (task.verification !== "verified") {
    found.add(
      "task.verified_by_non_claimant",
      where(task),
      `${name(task)} is ${task.status} but neither verified nor flagged unverified (verification ${String(task.verification)})`,
    );
    return;
  }
  const verifyIndex = transitions.findLastIndex((t) => t.to_status === "verified");
  const verify = transitions[verifyIndex];
  if (!verify || verify.move !== "verify") {
    found.add(
      "task.verified_by_non_claimant",
      where(task),
      `${name(task)} is ${task.status} (verified) but has no verify transition${verify ? ` (reached verified by ${verify.move})` : ""}`,
    );
    return;
  }
  const claim = transitions.slice(0, verifyIndex).findLast((t) => t.to_status === "claimed");
  const problems: string[] = [];
  if (!MOVE_RULES.verify.roles.includes(verify.role as never)) problems.push(`verified by role ${String(verify.role)}`);
  if (!claim) problems.push("verified without a claim before it");
  const claimants = new Set([claim?.actor, verify.claimant, task.claimed_by].filter((c): c is string => typeof c === "string"));
  if (claimants.has(verify.actor)) problems.push(`verified by its claimant ${verify.actor}`);
  const principal = comparable(verify.principal_id);
  if (claim && principal !== null && principal === comparable(claim.principal_id)) problems.push(`verified by the claimant's principal ${principal}`);
  if (task.verified_by !== null && task.verified_by === task.claimed_by) problems.push(`verified_by equals claimed_by (${task.verified_by})`);
  if (problems.length > 0) found.add("task.verified_by_non_claimant", where(task), `${name(task)}: transition ${verify.id} ${problems.join("; ")}`);
}
