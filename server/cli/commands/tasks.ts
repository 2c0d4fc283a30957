import type { Command } from "commander";
import { MERGE_STATUSES, REVIEW_STATUSES } from "@/server/domain/vocabulary";
import { TASK_STATUSES, type TaskStatus } from "@/server/domain/task-machine";
import type { TaskRow } from "@/server/services/task/load";
import type { TransitionRow } from "@/server/services/task/list";
import { CreateTaskInput, ReportTaskInput, type TaskDetails } from "@/server/services/task/schemas";
import { exitCodeOf } from "../api";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { noteTranslation } from "./bazinga-input";
import { act, bool, dualOption, example, int, oneOf, pick, read, sessionArg, snakeKeys, stringList, validate, wrote } from "./shared";

/**
 * BAZINGA's task-group statuses in Proofgate's machine. `failed` is a blocked task; a tech lead's
 * approval (`approved_pending_merge`, `merging`) is `verified`. The original word is kept as
 * `sourceStatus`. Proofgate's own statuses are accepted as they are.
 */
const STATUS_WORDS: Readonly<Record<string, TaskStatus>> = {
  ...Object.fromEntries(TASK_STATUSES.map((s) => [s, s])),
  failed: "blocked",
  approved_pending_merge: "verified",
  merging: "verified",
};
const statusWord = oneOf(Object.keys(STATUS_WORDS));

/** A task as BAZINGA's `get-task-groups` shows a group (`id` is the group id, `name`, `assigned_to`…), Proofgate's columns beside. */
export function taskGroupView(task: TaskRow): Record<string, unknown> {
  return {
    ...snakeKeys(task),
    id: task.key,
    task_id: task.id,
    name: task.title,
    assigned_to: task.assignee,
    feature_branch: task.branch,
    initial_tier: task.tier,
  };
}

type DetailKey = keyof TaskDetails;

/** BAZINGA's task-group flags (spelled as its prompts spell them) and the task detail each one sets. */
const DETAIL_FLAGS: readonly { flag: string; value: string; field: DetailKey; help: string; parse?: (v: string) => unknown }[] = [
  { flag: "name", value: "name", field: "title", help: "the group's name" },
  { flag: "assigned_to", value: "agent", field: "assignee", help: "the agent assigned to the group" },
  { flag: "complexity", value: "n", field: "complexity", help: "complexity 1–10", parse: int(1, 10) },
  { flag: "initial_tier", value: "tier", field: "tier", help: "Developer or Senior Software Engineer" },
  { flag: "item_count", value: "n", field: "itemCount", help: "number of work items", parse: int(0) },
  { flag: "component-path", value: "path", field: "componentPath", help: "component the group works in" },
  { flag: "specializations", value: "json", field: "specializations", help: "JSON array of specialization paths", parse: stringList },
  { flag: "revision_count", value: "n", field: "revisionCount", help: "revision cycles so far", parse: int(0) },
  {
    flag: "last_review_status",
    value: "status",
    field: "lastReviewStatus",
    help: `${REVIEW_STATUSES.join(" or ")} (another word is kept in the task's metadata)`,
  },
  { flag: "review_iteration", value: "n", field: "reviewIteration", help: "review iteration (from 1)", parse: int(1) },
  { flag: "no_progress_count", value: "n", field: "noProgressCount", help: "iterations without progress", parse: int(0) },
  { flag: "blocking_issues_count", value: "n", field: "blockingIssuesCount", help: "open blocking issues", parse: int(0) },
  { flag: "qa_attempts", value: "n", field: "qaAttempts", help: "QA attempts so far", parse: int(0) },
  { flag: "tl_review_attempts", value: "n", field: "tlReviewAttempts", help: "tech lead review attempts so far", parse: int(0) },
  { flag: "security_sensitive", value: "0|1", field: "securitySensitive", help: "whether the group touches security", parse: bool },
  { flag: "feature_branch", value: "branch", field: "branch", help: "the developer's feature branch" },
  { flag: "merge_status", value: "status", field: "mergeStatus", help: MERGE_STATUSES.join(", "), parse: oneOf(MERGE_STATUSES) },
  { flag: "speckit_task_ids", value: "json", field: "metadata", help: "JSON array of SpecKit task ids (kept in the task's metadata)", parse: stringList },
];

const CREATE_FLAGS = new Set(["complexity", "initial_tier", "item_count", "component-path", "specializations", "security_sensitive"]);

function addDetailFlags(command: Command, only?: Set<string>): Command {
  for (const d of DETAIL_FLAGS) if (!only || only.has(d.flag)) dualOption(command, d.flag, d.value, d.help, d.parse);
  return command;
}

/**
 * The API's details for the flags given. bazinga_db.py stores any --last_review_status word and
 * --speckit_task_ids; a word outside Proofgate's review statuses and the SpecKit ids go into the
 * task's metadata (noted with --verbose), the column keeps only what it knows.
 */
function detailsFrom(options: Record<string, unknown>, notes: string[] = []): Partial<TaskDetails> {
  const details: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  for (const d of DETAIL_FLAGS) {
    const value = pick(options, d.flag);
    if (value === undefined) continue;
    if (d.field === "metadata") metadata[d.flag] = value;
    else if (d.field === "lastReviewStatus" && !(REVIEW_STATUSES as readonly string[]).includes(String(value))) metadata.last_review_status = value;
    else details[d.field] = value;
  }
  if (Object.keys(metadata).length > 0) {
    details.metadata = metadata;
    notes.push(`${Object.keys(metadata).join(", ")} kept in the task's metadata`);
  }
  return details as Partial<TaskDetails>;
}

/** CLI names of the API's fields, for refusals. */
const NAMES: Record<string, string> = {
  sessionId: "session",
  key: "group_id",
  ...Object.fromEntries(DETAIL_FLAGS.map((d) => [d.field, `--${d.flag}`])),
};

function reportText(key: string, task: TaskRow): string {
  const flag = task.verification === "none" && (task.status === "completed" || task.status === "verified") ? " — unverified: no verify move" : "";
  return `✓ Task group ${key}: ${task.status}${task.sourceStatus && task.sourceStatus !== task.status ? ` (reported ${task.sourceStatus})` : ""}${flag}`;
}

const isNotFound = (error: unknown) => exitCodeOf(error) === 3;

export type TaskWithHistory = TaskRow & { transitions: TransitionRow[] };

const time = (at: Date | string | number | null | undefined) => (at == null ? "" : new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z"));

/**
 * A task and every transition it went through, oldest first, for a person at a shell: each line
 * is from → to, the move, who made it in which role, and when; reasons, evidence, failures and
 * proofpacks are indented below their move. A reset keeps the earlier claim and block in the list.
 */
export function taskHistoryText(task: TaskWithHistory): string {
  const lines = [
    `Task ${task.key} in ${task.sessionId}: ${task.title}`,
    `  status: ${task.status} (version ${task.version}${task.resetCount > 0 ? `, reset ${task.resetCount}×` : ""})${task.verification === "none" ? " — unverified: no verify move" : ""}`,
  ];
  if (task.assignee) lines.push(`  assigned to: ${task.assignee}`);
  if (task.resetRequested) lines.push(`  reset requested by ${task.resetRequestedBy ?? "?"}: ${task.resetReason ?? ""}`);
  lines.push("", `Transitions (${task.transitions.length}, oldest first):`);
  const width = Math.max(0, ...task.transitions.map((t) => `${t.fromStatus ?? "—"} → ${t.toStatus}`.length));
  const moveWidth = Math.max(0, ...task.transitions.map((t) => t.move.length));
  task.transitions.forEach((t, i) => {
    const step = `${t.fromStatus ?? "—"} → ${t.toStatus}`.padEnd(width);
    lines.push(`  ${String(i + 1).padStart(2)}. ${time(t.at)}  ${step}  ${t.move.padEnd(moveWidth)}  by ${t.actor}${t.role ? ` (${t.role})` : ""}`);
    const more = (label: string, value: string) => lines.push(`        ${label}: ${value}`);
    if (t.reason) more("reason", t.reason);
    if (t.evidence?.length) more("evidence", t.evidence.join(", "));
    if (t.claimant && t.claimant !== t.actor) more("claimant", t.claimant);
    if (t.failures?.length) more("failures", t.failures.join("; "));
    if (t.proofpack)
      more(
        "proofpack",
        `${t.proofpack.verdict}: ${t.proofpack.checks.map((c) => `${c.name} ${c.passed ? "pass" : "fail"}`).join(", ")}${t.proofpack.notes ? ` (${t.proofpack.notes})` : ""}`,
      );
  });
  return lines.join("\n");
}

/** BAZINGA's task-group commands: create-task-group, update-task-group, get-task-groups. */
export function taskCommands(program: Command, out: Output): void {
  const create = program
    .command("create-task-group")
    .description("Create a task group (a task), or update it if it exists; a status other than pending is then reported as update-task-group --status would")
    .argument("<group_id>", "the group's id, e.g. group_a")
    .argument("<session>", "session id", sessionArg)
    .argument("<name>", "the group's name")
    .argument("[status]", `BAZINGA's or Proofgate's status word: ${Object.keys(STATUS_WORDS).join(", ")}`, statusWord)
    .argument("[assigned_to]", "the agent assigned to it");
  example(
    addDetailFlags(create, CREATE_FLAGS),
    'proofgate create-task-group group_a bazinga_20250112_143022 "JWT auth" pending developer_1 --complexity 7 --initial_tier "Senior Software Engineer"',
  ).action(
    act(out, (key: string, sessionId: string, name: string, status: string | undefined, assignee: string | undefined, options: Record<string, unknown>) => {
      const details = { ...detailsFrom(options), title: name, ...(assignee === undefined ? {} : { assignee }) };
      const input = validate(CreateTaskInput, { sessionId, key, ...details }, { ...NAMES, title: "name", assignee: "assigned_to" });
      const reported = status === undefined || status === "pending" ? {} : { status: STATUS_WORDS[status], sourceStatus: status };
      return async (api) => {
        const existing = await api.query<TaskRow>("task.get", { sessionId, key }).catch((error: unknown) => {
          if (isNotFound(error)) return null;
          throw error;
        });
        let task = existing
          ? await api.mutate<TaskRow>("task.report", { sessionId, key, ...details, ...reported })
          : await api.mutate<TaskRow>("task.create", input);
        if (!existing && reported.status) task = await api.mutate<TaskRow>("task.report", { sessionId, key, ...reported });
        return wrote(taskGroupView(task), `${existing ? "✓ Updated existing" : "✓ Created"} task group ${key} in ${sessionId}: ${task.status}`);
      };
    }),
  );

  const update = program
    .command("update-task-group")
    .description(
      "Update a task group; --status is a report: an enforce session allows only a legal move (start, claim, complete) and names the move to use otherwise, an observe session records it and flags unverified completions",
    )
    .argument("<group_id>", "the group's id")
    .argument("<session>", "session id", sessionArg);
  dualOption(update, "status", "status", `new status: ${Object.keys(STATUS_WORDS).join(", ")}`, statusWord);
  dualOption(update, "auto_create", "bool", "create the group first if it does not exist", bool);
  example(
    addDetailFlags(update),
    "proofgate update-task-group group_a bazinga_20250112_143022 --status in_progress --assigned_to developer_1",
    "proofgate update-task-group group_a bazinga_20250112_143022 --last_review_status APPROVED --revision_count 1",
  ).action(
    act(out, (key: string, sessionId: string, options: Record<string, unknown>) => {
      const status = pick<string>(options, "status");
      const notes: string[] = [];
      const details = detailsFrom(options, notes);
      if (status === undefined && Object.keys(details).length === 0)
        throw new UsageError("update-task-group: give at least one field to change (--status, --assigned_to, …)");
      const input = validate(
        ReportTaskInput,
        { sessionId, key, ...details, ...(status ? { status: STATUS_WORDS[status], sourceStatus: status } : {}) },
        { ...NAMES, status: "--status" },
      );
      const autoCreate = pick<boolean>(options, "auto_create") ?? false;
      return async (api, globals) => {
        noteTranslation(
          globals,
          notes.map((n) => `update-task-group: ${n}`),
        );
        const report = () => api.mutate<TaskRow>("task.report", input);
        const task = await report().catch(async (error: unknown) => {
          if (!autoCreate || !isNotFound(error)) throw error;
          await api.mutate("task.create", { sessionId, key, title: input.title ?? key });
          return report();
        });
        return wrote(taskGroupView(task), reportText(key, task));
      };
    }),
  );

  example(
    program
      .command("get-task")
      .description("Show a task with its full transition history (every move: from → to, who, in which role, why, when); a reset keeps the earlier attempts")
      .argument("<session>", "session id", sessionArg)
      .argument("<task>", "the task's key (BAZINGA's group id)"),
    "proofgate get-task bazinga_20250112_143022 group_a",
    "proofgate get-task bazinga_20250112_143022 group_a --json",
  ).action(
    act(out, (sessionId: string, key: string) => async (api) => {
      const task = await api.query<TaskWithHistory>("task.get", { sessionId, key });
      return read(task, taskHistoryText(task));
    }),
  );

  example(
    program
      .command("get-task-groups")
      .description("List a session's task groups, optionally only those in one status (BAZINGA's words work: failed, approved_pending_merge, merging…)")
      .argument("<session>", "session id", sessionArg)
      .argument("[status]", "only this status", statusWord),
    "proofgate get-task-groups bazinga_20250112_143022 in_progress",
  ).action(
    act(out, (sessionId: string, status: string | undefined) => async (api) => {
      const tasks = await api.query<TaskRow[]>("task.list", { sessionId, ...(status ? { status: STATUS_WORDS[status] } : {}) });
      // approved_pending_merge and merging are both `verified`: the original word tells them apart.
      const exact = status === "approved_pending_merge" || status === "merging" ? tasks.filter((t) => t.sourceStatus === status) : tasks;
      return read(exact.map(taskGroupView));
    }),
  );
}
