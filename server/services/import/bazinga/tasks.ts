import { MERGE_STATUSES, REVIEW_STATUSES } from "@/server/domain/vocabulary";
import type { TaskStatus } from "@/server/domain/task-machine";
import { createTask } from "../../task/create";
import { reportTask } from "../../task/report";
import type { TaskDetails } from "../../task/schemas";
import { type ImportRun, apply, at } from "../run";
import { firstTime, int, label, parseJson, text } from "../values";
import type { Row } from "./read";
import type { SessionGate } from "./sessions";

/**
 * BAZINGA's task-group statuses in Proofgate's machine (DESIGN.md): `failed` is blocked; a tech
 * lead's approval (`approved_pending_merge`, `merging`) is verified; `completed` is completed. BAZINGA
 * keeps no verification record (no verifier, no proofpack), so a group that reached verified or
 * completed arrives with `verification = 'none'`: flagged, counted, never hidden.
 */
export const BAZINGA_TASK_STATUS: Readonly<Record<string, TaskStatus>> = {
  pending: "pending",
  in_progress: "in_progress",
  completed: "completed",
  failed: "blocked",
  approved_pending_merge: "verified",
  merging: "verified",
};

interface TaskGroupState {
  status: string;
  details: TaskDetails;
}

const count = (value: unknown, min: number, fallback: number) => {
  const n = int(value);
  return n !== null && n >= min ? n : fallback;
};

const stringList = (value: unknown): string[] | null => {
  const parsed = parseJson(value);
  return Array.isArray(parsed) && parsed.every((item) => typeof item === "string") ? parsed : null;
};

/**
 * A group's details. A value outside what Proofgate's column holds (a merge or review status word
 * it does not know, a complexity outside 1–10, a negative item count) and speckit_task_ids are kept
 * as given in the task's metadata, never dropped.
 */
function detailsOf(row: Row): TaskDetails {
  const complexity = int(row.complexity);
  const merge = text(row.merge_status);
  const review = text(row.last_review_status);
  const references = parseJson(row.context_references);
  const metadata: Record<string, unknown> = {};
  if (merge !== null && !(MERGE_STATUSES as readonly string[]).includes(merge)) metadata.merge_status = merge;
  if (review !== null && !(REVIEW_STATUSES as readonly string[]).includes(review)) metadata.last_review_status = review;
  if (row.complexity !== null && row.complexity !== undefined && (complexity === null || complexity < 1 || complexity > 10))
    metadata.complexity = row.complexity;
  if (row.item_count !== null && row.item_count !== undefined && (int(row.item_count) === null || int(row.item_count)! < 0))
    metadata.item_count = row.item_count;
  const speckit = parseJson(row.speckit_task_ids);
  if (speckit !== null && speckit !== undefined && !(Array.isArray(speckit) && speckit.length === 0)) metadata.speckit_task_ids = speckit;
  return {
    title: label(row.name) ?? label(row.id) ?? "task group",
    assignee: label(row.assigned_to),
    complexity: complexity !== null && complexity >= 1 && complexity <= 10 ? complexity : null,
    tier: label(row.initial_tier),
    branch: label(row.feature_branch),
    mergeStatus: merge !== null && (MERGE_STATUSES as readonly string[]).includes(merge) ? (merge as TaskDetails["mergeStatus"]) : null,
    lastReviewStatus: review !== null && (REVIEW_STATUSES as readonly string[]).includes(review) ? (review as TaskDetails["lastReviewStatus"]) : null,
    revisionCount: count(row.revision_count, 0, 0),
    itemCount: int(row.item_count) !== null && int(row.item_count)! >= 0 ? int(row.item_count) : null,
    componentPath: label(row.component_path),
    specializations: stringList(row.specializations),
    contextReferences: Array.isArray(references) ? references : null,
    securitySensitive: int(row.security_sensitive) === 1,
    qaAttempts: count(row.qa_attempts, 0, 0),
    tlReviewAttempts: count(row.tl_review_attempts, 0, 0),
    reviewIteration: count(row.review_iteration, 1, 1),
    noProgressCount: count(row.no_progress_count, 0, 0),
    blockingIssuesCount: count(row.blocking_issues_count, 0, 0),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** Fields whose value differs between two detail sets (what a report must carry). */
function changedDetails(before: TaskDetails, after: TaskDetails): Partial<TaskDetails> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(value) !== JSON.stringify(before[key as keyof TaskDetails])) out[key] = value;
  }
  return out as Partial<TaskDetails>;
}

/**
 * Task groups become tasks (the group id is the task key) through the task services: created
 * pending at the group's `created_at`, then its status reported at `updated_at`, which appends the
 * transition and, for a completion nobody verified, the `unverified_completion` event. A later
 * change in BAZINGA (status or details) is one more report: history is appended, never rewritten.
 */
export async function importTaskGroups(run: ImportRun, rows: readonly Row[], gate: SessionGate): Promise<void> {
  for (const row of rows) {
    run.tally.read("task groups");
    const sessionId = text(row.session_id) ?? "";
    const groupId = text(row.id) ?? "";
    const key = `${sessionId}|${groupId}`;
    const refusal = gate.refusal(sessionId);
    if (refusal) {
      run.tally.skip("task groups", key, refusal);
      continue;
    }
    const word = text(row.status) ?? "pending";
    // A word BAZINGA's machine does not have is kept as the source status of a pending task: the
    // group is not dropped, and nothing is claimed for it that it did not report.
    const status = BAZINGA_TASK_STATUS[word] ?? "pending";
    const state: TaskGroupState = { status: word, details: detailsOf(row) };
    const createdAt = firstTime(gate.startOf(sessionId) ?? run.startedAt, row.created_at);
    const updatedAt = firstTime(createdAt, row.updated_at);
    const record = await run.book.get("task_group", key);
    if (!record) {
      await apply(run, "task groups", key, async () => {
        const task = await createTask(at(run, createdAt), { sessionId, key: groupId, ...state.details, title: state.details.title ?? groupId });
        if (status !== "pending" || word !== "pending") await reportTask(at(run, updatedAt), { sessionId, key: groupId, status, sourceStatus: word });
        await run.book.put("task_group", key, { targetId: task.id, sessionId, state }, updatedAt);
        return "imported";
      });
      continue;
    }
    const before = JSON.parse(record.state ?? "null") as TaskGroupState | null;
    if (before && JSON.stringify(before) === JSON.stringify(state)) {
      run.tally.count("task groups", "unchanged");
      continue;
    }
    await apply(run, "task groups", key, async () => {
      const details = before ? changedDetails(before.details, state.details) : state.details;
      const statusChange = !before || before.status !== word ? { status, sourceStatus: word } : {};
      await reportTask(at(run, updatedAt), { sessionId, key: groupId, ...details, ...statusChange });
      await run.book.put("task_group", key, { targetId: record.targetId, sessionId, state }, updatedAt);
      return "updated";
    });
  }
}
