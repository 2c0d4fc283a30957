/**
 * One human-readable line per `events` row, for the activity feed ("developer_1 claimed task
 * group_a"). Pure and free of database imports, so the dashboard can describe events it receives
 * from the live stream with the same words the overview uses. Rows written by older versions, the
 * demo generator or the importer may lack some fields; a missing field is left out, never shown
 * as "undefined".
 */
import { type EVENT_TYPES, TASK_MOVE_EVENTS } from "@/server/domain/event-types";
import type { TaskMove } from "@/server/domain/task-machine";
import { eventDataForReaders } from "@/server/domain/webhooks";

export interface DescribableEvent {
  type: string;
  actor: string;
  entity?: string;
  entityId: string | null;
  data: Record<string, unknown> | null;
  /** `token:<id> <name>` when a person acted through a personal API token (events.via). */
  via?: string | null;
}

type Describer = (e: { actor: string; id: string | null; d: Record<string, unknown> }) => string;
type LedgerEventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

/** The events admins cause (users and tokens), and people's own personal tokens: written by the admin and account services. */
export const ADMIN_EVENT_TYPES = [
  "admin.user_created",
  "admin.user_role_changed",
  "admin.token_created",
  "admin.token_revoked",
  "account.token_created",
  "account.token_revoked",
  "admin.webhook_created",
  "admin.webhook_removed",
  "admin.webhook_tested",
] as const;

const text = (d: Record<string, unknown>, key: string): string | undefined => {
  const value = d[key];
  return typeof value === "string" && value.trim() !== "" ? value : typeof value === "number" ? String(value) : undefined;
};
const count = (d: Record<string, unknown>, key: string): number | undefined => (typeof d[key] === "number" ? (d[key] as number) : undefined);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const quoted = (value: string | undefined) => (value === undefined ? "" : ` "${clip(value)}"`);
const clip = (value: string, max = 80) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
const suffix = (value: string | undefined, before = " ") => (value === undefined ? "" : `${before}${value}`);
const paren = (value: string | undefined) => (value === undefined ? "" : ` (${value})`);
/** "a research context package", "a decision": the kind as an adjective when it is known. */
const kindOf = (value: string | undefined, noun: string) => (value === undefined ? noun : `${value} ${noun}`);
const ref = (kind: string, id: string | number | null | undefined) => (id === null || id === undefined ? kind : `${kind} #${id}`);
const task = (d: Record<string, unknown>) => `task ${text(d, "key") ?? "?"}`;
const change = (d: Record<string, unknown>) => {
  const from = text(d, "from");
  const to = text(d, "to");
  return to === undefined ? "" : from === undefined ? ` to ${to}` : ` from ${from} to ${to}`;
};

const MOVES: Record<TaskMove, Describer> = {
  start: ({ actor, d }) => `${actor} started ${task(d)}`,
  claim: ({ actor, d }) => `${actor} claimed ${task(d)} as done`,
  verify: ({ actor, d }) => `${actor} verified ${task(d)}`,
  block: ({ actor, d }) => `${actor} blocked ${task(d)}`,
  complete: ({ actor, d }) => `${actor} completed ${task(d)}`,
  request_reset: ({ actor, d }) => `${actor} requested a reset of blocked ${task(d)}`,
  approve_reset: ({ actor, d }) => `${actor} approved the reset of ${task(d)}: back to pending`,
  decline_reset: ({ actor, d }) => `${actor} declined the reset request of ${task(d)}: it stays blocked`,
};

/** Claude Code's SessionStart sources as verbs. */
const RUNTIME_STARTS: Record<string, string> = { startup: "started", resume: "resumed", clear: "cleared", compact: "compacted" };

const LEDGER: Record<LedgerEventType, Describer> = {
  "session.created": ({ actor, id, d }) => `${actor} created session ${id ?? "?"}${paren(text(d, "enforcement"))}`,
  "session.status_changed": ({ actor, id, d }) => `${actor} changed session ${id ?? "?"}${change(d)}`,
  "session.enforcement_changed": ({ actor, id, d }) => `${actor} switched session ${id ?? "?"}${change(d)}${suffix(text(d, "reason"), ": ")}`,
  "task.created": ({ actor, d }) => `${actor} created ${task(d)}${quoted(text(d, "title"))}`,
  "task.updated": ({ actor, d }) => {
    const fields = Array.isArray(d.fields) ? d.fields.filter((f): f is string => typeof f === "string") : [];
    return `${actor} updated ${task(d)}${fields.length > 0 ? ` (${fields.join(", ")})` : ""}`;
  },
  "task.reported": ({ actor, d }) => `${actor} reported ${task(d)}${change(d)}`,
  unverified_completion: ({ actor, d }) => `${actor} reported ${task(d)} completed without verification`,
  "criteria.saved": ({ actor, d }) => `${actor} added success criterion${quoted(text(d, "criterion"))}`,
  "criterion.updated": ({ actor, d }) =>
    d.kind === "required"
      ? `${actor} changed whether criterion${quoted(text(d, "criterion"))} is required`
      : `${actor} ${d.kind === "import" ? "imported" : "updated"} criterion${quoted(text(d, "criterion"))}${change(d)}`,
  "criterion.verified": ({ actor, d }) => {
    const found = text(d, "to") ?? text(d, "found");
    return `${actor} verified criterion${quoted(text(d, "criterion"))}${found === undefined ? "" : `: found ${found}`}`;
  },
  "completion.checked": ({ actor, d }) => {
    const met = count(d, "met");
    const total = count(d, "total");
    const tally = met !== undefined && total !== undefined ? ` (${met}/${total} required criteria met)` : "";
    return `${actor} ran the completion check: ${d.accepted === true ? "accepted" : "rejected"}${tally}`;
  },
  "goal.created": ({ actor, d }) =>
    `${actor} created ${typeof d.parentGoalId === "number" ? `a sub-goal of goal #${d.parentGoalId}` : "goal"}${quoted(text(d, "goalText"))}`,
  "goal.contract_set": ({ actor, id, d }) => {
    const criteria = count(d, "criteria");
    const max = count(d, "maxGoalAttempts");
    const details = [
      criteria !== undefined ? plural(criteria, "acceptance criterion", "acceptance criteria") : undefined,
      max !== undefined ? `at most ${plural(max, "attempt")}` : undefined,
    ].filter(Boolean);
    return `${actor} ${d.replaced === true ? "replaced" : "set"} the contract of ${ref("goal", id)}${details.length > 0 ? ` (${details.join(", ")})` : ""}`;
  },
  "attempt.started": ({ actor, id, d }) =>
    `${actor} started ${text(d, "attemptType") ?? "an"} ${ref("attempt", id)} on ${ref("goal", count(d, "goalId"))}${suffix(text(d, "model"), " with ")}`,
  "attempt.finished": ({ actor, id, d }) => `${actor} finished ${ref("attempt", id)}${suffix(text(d, "status"), ": ")}`,
  "attempt.trust_scored": ({ actor, id, d }) => `${actor} gave ${ref("attempt", id)} a trust score of ${count(d, "score") ?? "?"}/100`,
  "goal.gate_evaluated": ({ actor, id, d }) =>
    `${actor} evaluated ${ref("goal", id)}${suffix(text(d, "verdict"), ": ")}${count(d, "attemptNumber") !== undefined ? ` (attempt ${count(d, "attemptNumber")})` : ""}`,
  "logs.appended": ({ actor, d }) => {
    const n = count(d, "count") ?? 1;
    const kind = text(d, "logType");
    return `${actor} logged ${plural(n, kind ? `${kind} entry` : "entry", kind ? `${kind} entries` : "entries")}${suffix(text(d, "agentType"), " for ")}`;
  },
  "tokens.logged": ({ actor, d }) => {
    const tokens = count(d, "tokens") ?? count(d, "total");
    const rows = count(d, "count") ?? 1;
    return tokens !== undefined
      ? `${actor} logged ${tokens.toLocaleString("en-US")} tokens${rows > 1 ? ` in ${plural(rows, "row")}` : ""}${suffix(text(d, "agentType"), " for ")}`
      : `${actor} logged ${plural(rows, "token usage row")}`;
  },
  "state.saved": ({ actor, d }) => {
    const types = Array.isArray(d.types) ? d.types.filter((t): t is string => typeof t === "string").join(" and ") : text(d, "stateType");
    return `${actor} saved ${types ? `${types} ` : ""}state${suffix(text(d, "groupId") === "global" ? undefined : text(d, "groupId"), " for ")}`;
  },
  "skill_output.saved": ({ actor, d }) => `${actor} saved ${text(d, "skillName") ?? "skill"} output${suffix(text(d, "groupId"), " for ")}`,
  "decision.saved": ({ actor, d }) => `${actor} recorded a ${kindOf(text(d, "decisionType"), "decision")}`,
  "plan.saved": ({ actor, d }) => {
    const phases = count(d, "totalPhases");
    return `${actor} ${d.created === false ? "revised the" : "saved a"} development plan${phases !== undefined ? ` (${plural(phases, "phase")})` : ""}`;
  },
  "plan.progress_updated": ({ actor, d }) => `${actor} moved plan phase ${count(d, "phase") ?? "?"}${change(d)}`,
  "context_package.saved": ({ actor, d }) => {
    const consumers = Array.isArray(d.consumers) ? d.consumers.filter((c): c is string => typeof c === "string") : [];
    return `${actor} shared a ${kindOf(text(d, "packageType"), "context package")}${consumers.length > 0 ? ` with ${consumers.join(", ")}` : ""}`;
  },
  "context_package.consumed": ({ actor, id, d }) => `${text(d, "agentType") ?? actor} read ${ref("context package", id)}`,
  "error_pattern.saved": ({ actor, d }) =>
    `${actor} ${text(d, "operation") === "updated" ? "saw a known" : "saved an"} error pattern for ${text(d, "projectId") ?? "a project"}`,
  "error_pattern.confidence_updated": ({ actor, d }) =>
    `${actor} marked an error pattern's fix as ${text(d, "outcome") === "success" ? "helpful" : "a false match"}`,
  "error_pattern.cleaned_up": ({ actor, d }) => `${actor} removed ${Array.isArray(d.removed) ? d.removed.length : 0} expired error patterns`,
  "strategy.saved": ({ actor, d }) => `${actor} saved a ${text(d, "topic") ?? "general"} strategy for ${text(d, "projectId") ?? "a project"}`,
  "strategy.helpfulness_updated": ({ actor }) => `${actor} marked a strategy as helpful`,
  "strategy.extracted": ({ actor, d }) =>
    `${actor} extracted ${Array.isArray(d.strategyIds) ? d.strategyIds.length : 0} strategies from group ${text(d, "groupId") ?? "?"}`,
  "consumption.saved": ({ actor, d }) => `${text(d, "agentType") ?? actor} read ${ref("context package", count(d, "packageId"))}`,
  "goal.validation_step_added": ({ actor, d }) => `${actor} added validation step${quoted(text(d, "command"))} to ${ref("goal", count(d, "goalId"))}`,
  "branch.created": ({ actor, d }) => `${actor} created branch ${text(d, "name") ?? "?"}`,
  "worktree.created": ({ actor, d }) => `${actor} created worktree ${text(d, "path") ?? "?"}`,
  "merge.recorded": ({ actor, d }) => `${actor} merged ${text(d, "from") ?? "a branch"} into ${text(d, "to") ?? "?"}`,
  "attempt.tool_calls_recorded": ({ actor, id, d }) => `${actor} recorded ${plural(count(d, "count") ?? 0, "tool call")} for ${ref("attempt", id)}`,
  "attempt.validation_run_recorded": ({ actor, id, d }) => {
    const exit = count(d, "exitCode");
    return `${actor} recorded a validation run for ${ref("attempt", id)}${exit === undefined ? "" : `: exit ${exit} (${exit === 0 ? "passed" : "failed"})`}`;
  },
  "runtime.session_started": ({ actor, d }) =>
    `${actor} ${RUNTIME_STARTS[text(d, "source") ?? "startup"] ?? "started"} ${text(d, "runtime") ?? "runtime"} session ${text(d, "runtimeSessionId") ?? "?"}`,
  "runtime.stop_held": ({ actor, d }) =>
    `${actor} tried to stop and was held (${count(d, "block") ?? "?"} of ${count(d, "maxBlocks") ?? "?"}): the completion gate rejects`,
  "runtime.stop_unverified": ({ actor, d }) =>
    `${actor} stopped with the completion gate rejected${text(d, "cause") === "max_blocks" ? " (after the cap of held stops)" : ""}`,
  "runtime.stop_released": ({ actor, d }) => `${actor} stopped after ${plural(count(d, "afterHeld") ?? 0, "held stop")}`,
};

const ADMIN: Record<(typeof ADMIN_EVENT_TYPES)[number], Describer> = {
  "admin.user_created": ({ actor, d }) => `${actor} added user ${text(d, "email") ?? "?"}${suffix(text(d, "role"), " as ")}`,
  "admin.user_role_changed": ({ actor, d }) => `${actor} changed a user's role${change(d)}`,
  "admin.token_created": ({ actor, d }) => `${actor} created API token ${text(d, "name") ?? "?"}${paren(text(d, "role"))}`,
  "admin.token_revoked": ({ actor, d }) => `${actor} revoked API token ${text(d, "name") ?? "?"}${suffix(text(d, "owner"), " of ")}`,
  "account.token_created": ({ actor, d }) => `${actor} created personal API token ${text(d, "name") ?? "?"}`,
  "account.token_revoked": ({ actor, d }) => `${actor} revoked personal API token ${text(d, "name") ?? "?"}`,
  "admin.webhook_created": ({ actor, id, d }) => `${actor} added webhook #${id ?? "?"} to ${text(d, "host") ?? "?"}`,
  "admin.webhook_removed": ({ actor, id, d }) => `${actor} removed webhook #${id ?? "?"} (${text(d, "host") ?? "?"})`,
  "admin.webhook_tested": ({ actor, id }) => `${actor} sent a test delivery to webhook #${id ?? "?"}`,
};

/** "alice@example.com (via token ci-script)": who acted, and the personal token they acted through. */
function actorOf(event: DescribableEvent): string {
  const token = event.via ? /^token:\d+ (.+)$/s.exec(event.via)?.[1] : undefined;
  return token === undefined ? event.actor : `${event.actor} (via token ${token})`;
}

const BY_TYPE: ReadonlyMap<string, Describer> = new Map<string, Describer>([
  ...(Object.entries(MOVES) as [TaskMove, Describer][]).map(([move, describe]) => [TASK_MOVE_EVENTS[move], describe] as const),
  ...Object.entries(LEDGER),
  ...Object.entries(ADMIN),
]);

/** Whether `describeEvent` has its own words for this type (else it falls back to the type name). */
export function isDescribed(type: string): boolean {
  return BY_TYPE.has(type);
}

/** "developer_1 claimed task group_a as done": one line for the activity feed. */
export function describeEvent(event: DescribableEvent): string {
  const describe = BY_TYPE.get(event.type);
  const d = eventDataForReaders(event.type, event.data) ?? {};
  const actor = actorOf(event);
  if (!describe) return `${actor}: ${event.type}${event.entityId !== null ? ` (${event.entity ?? "entity"} ${event.entityId})` : ""}`;
  return describe({ actor, id: event.entityId, d });
}
