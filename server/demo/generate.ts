import { branches, completionChecks, sessions } from "@/db/schema";
import type { Db } from "@/db/client";
import type { CriterionState } from "@/server/domain/criteria";
import { type GateGoal, type GateTask, evaluateCompletion } from "@/server/domain/completion-gate";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ValidationError } from "@/server/domain/errors";
import { catchUpReasonKinds } from "@/server/services/analytics/rollups";
import { type ProgressListener, noProgress } from "@/server/services/progress";
import { createBulkWriter, loadWithRollupsRebuilt } from "./bulk";
import { type SessionContext, demoActor, emit, tick } from "./context";
import { type CriteriaOutcome, generateCriteria } from "./criteria";
import { generateGoals } from "./goals";
import { createRandom } from "./random";
import { type TaskFate, generateTask } from "./tasks";
import { generateGlobalConfig, generateTelemetry } from "./telemetry";
import { MODELS, REQUIREMENTS } from "./vocabulary";

export interface DemoOptions {
  sessions: number;
  seed?: number;
  /** The generator's "now": active sessions end near it, history reaches 90 days back. */
  now?: Date;
  /** Mean orchestration-log rows per session (default 100). */
  logsPerSession?: number;
  /** Called after every session generated ("generating"), then for the steps that finish the load ("finishing"). */
  onProgress?: ProgressListener;
}

export interface DemoSummary {
  sessions: number;
  seed: number;
  firstSessionId: string | null;
  milliseconds: number;
  rows: Record<string, number>;
}

export const MAX_DEMO_SESSIONS = 100_000;
export const MAX_SEED = 2 ** 31 - 1;
const ORCHESTRATOR = demoActor("orchestrator", "orchestrator");
const DAY = 86_400_000;

export function demoSessionId(seed: number, index: number): string {
  return `demo_${seed}_${String(index + 1).padStart(5, "0")}`;
}

/**
 * Fill a database with deterministic, realistic demo sessions covering every state: tasks in every
 * status (blocked ones with failures and reset requests), criteria in every status with evidence,
 * goals with contracts, breakdowns and attempts, logs, reasoning and tokens. Every task move goes
 * through the domain's task machine and the database's triggers, and every change has its event.
 */
export async function generateDemoData(db: Db, options: DemoOptions): Promise<DemoSummary> {
  const count = options.sessions;
  if (!Number.isInteger(count) || count < 1 || count > MAX_DEMO_SESSIONS) {
    throw new ValidationError("sessions", "demo.sessions_range", `must be an integer from 1 to ${MAX_DEMO_SESSIONS}`);
  }
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new ValidationError("seed", "demo.seed_range", `must be an integer from 0 to ${MAX_SEED}`);
  const now = (options.now ?? new Date()).getTime();
  const sqlite = db.$client;
  const started = performance.now();
  if (sqlite.prepare("SELECT 1 FROM sessions WHERE id = ?").get(demoSessionId(seed, 0))) {
    throw new ValidationError("seed", "demo.seed_used", `demo sessions for seed ${seed} already exist in this database: choose another --seed`);
  }

  const w = createBulkWriter(sqlite);
  const countRows = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
  sqlite.transaction(() => generateGlobalConfig(w, countRows, new Date(now)))();

  // One transaction: the rollup triggers are left out and the rollups counted once at the end.
  const report = options.onProgress ?? noProgress;
  report({ phase: "generating", done: 0, total: count, unit: "sessions" });
  const finishing = (done: number) => report({ phase: "finishing", done, total: 2, unit: "steps" });
  loadWithRollupsRebuilt(sqlite, () => {
    for (let i = 0; i < count; i++) {
      generateSession(w, seed, i, now, options.logsPerSession ?? 100);
      report({ phase: "generating", done: i + 1, total: count, unit: "sessions" });
    }
    // Rebuilding the rollups and committing take about a tenth of the time: not a frozen bar at 100%.
    finishing(0);
  });
  finishing(1);
  // Classify the new completion checks' rejection reasons now, so the first analytics read need not.
  await catchUpReasonKinds(db);
  finishing(2);
  const tables = [
    "sessions",
    "tasks",
    "task_transitions",
    "success_criteria",
    "criterion_updates",
    "completion_checks",
    "goals",
    "attempts",
    "tool_calls",
    "goal_gate_evaluations",
    "orchestration_logs",
    "token_usage",
    "events",
  ];
  return {
    sessions: count,
    seed,
    firstSessionId: demoSessionId(seed, 0),
    milliseconds: Math.round(performance.now() - started),
    rows: Object.fromEntries(tables.map((t) => [t, countRows(t)])),
  };
}

function generateSession(w: ReturnType<typeof createBulkWriter>, seed: number, index: number, now: number, logsPerSession: number): void {
  const r = createRandom(seed * 1_000_003 + index);
  const id = demoSessionId(seed, index);
  const status = r.weighted([
    ["completed", 60],
    ["failed", 25],
    ["active", 15],
  ] as const);
  const observe = r.chance(0.12);
  // An active session started hours ago, so its writes fit before "now" instead of piling up on it.
  const start = status === "active" ? now - r.int(12, 36) * 3_600_000 : now - r.int(1, 90) * DAY - r.int(0, DAY);
  const ctx: SessionContext = { w, r, sessionId: id, clock: start, end: status === "active" ? now : Math.min(now, start + 2 * DAY) };

  const requirements = r.pick(REQUIREMENTS);
  w.insert(sessions, {
    id,
    requirements,
    mode: r.chance(0.7) ? "parallel" : "simple",
    status: "active",
    initialBranch: "main",
    repoPath: `/home/dev/projects/${requirements.split(" ")[1]?.toLowerCase() ?? "app"}`,
    models: { developer: r.pick(MODELS), senior_software_engineer: r.pick(MODELS), verifier: r.pick(MODELS) },
    source: "demo",
    enforcement: observe ? "observe" : "enforce",
    startedAt: new Date(start),
    createdAt: new Date(start),
    updatedAt: new Date(start),
  });
  emit(ctx, EVENT_TYPES.sessionCreated, "session", id, ORCHESTRATOR, { status: "active", enforcement: observe ? "observe" : "enforce" });

  const criteriaOutcome: CriteriaOutcome = status === "completed" && !observe ? "all_met" : status === "failed" ? "failing" : "mixed";
  const criteria: CriterionState[] = generateCriteria(ctx, criteriaOutcome, (saved) => {
    // A PM that claims BAZINGA before doing the work: the gate's rejection is part of the history.
    if (r.chance(0.4)) recordCheck(ctx, saved, [], [], observe);
  });

  const taskCount = r.around(10, 2);
  const gateTasks: GateTask[] = [];
  for (let t = 0; t < taskCount; t++) gateTasks.push(generateTask(ctx, t, fateFor(ctx, status, observe)));

  let gateGoals: GateGoal[] = [];
  if (r.chance(0.7)) {
    const mainBranchId = w.insert(branches, { sessionId: id, name: "main", reason: "session", timestamp: new Date(ctx.clock) });
    emit(ctx, EVENT_TYPES.branchCreated, "branch", mainBranchId, ORCHESTRATOR, { name: "main", parentBranchId: null, goalId: null });
    gateGoals = generateGoals(ctx, r.int(1, 2), { mustSucceed: status === "completed" && !observe, mainBranchId });
  }

  generateTelemetry(
    ctx,
    gateTasks.map((t) => t.key),
    criteria,
    r.around(logsPerSession, 1),
  );

  const accepted = status !== "active" || r.chance(0.4) ? recordCheck(ctx, criteria, gateTasks, gateGoals, observe) : null;
  // The generator aims an enforce session it means to complete at an accepted check, but the real
  // gate has the last word (a session drawn with no criteria, say): one it rejects is marked failed,
  // as a team would, since the database refuses the completion (migration 0008).
  const final = status === "completed" && !observe && accepted === false ? "failed" : status;
  if (final !== "active") {
    const ended = tick(ctx, 1, 10);
    w.update(sessions, id, { status: final, endedAt: ended, updatedAt: ended });
    emit(ctx, EVENT_TYPES.sessionStatusChanged, "session", id, ORCHESTRATOR, { from: "active", to: final });
  }
}

function fateFor(ctx: SessionContext, status: "completed" | "failed" | "active", observe: boolean): TaskFate {
  const { r } = ctx;
  if (status === "completed") {
    if (observe && r.chance(0.5)) return "completed_unverified";
    return r.chance(0.2) ? "completed_after_reset" : "completed";
  }
  if (status === "failed") {
    if (observe && r.chance(0.3)) return "completed_unverified";
    return r.weighted([
      ["completed", 4],
      ["blocked", 3],
      ["claimed", 1],
      ["completed_after_reset", 1],
      ["blocked_reset_requested", 1],
    ] as const);
  }
  return r.weighted([
    ["pending", 2],
    ["in_progress", 2],
    ["claimed", 2],
    ["verified", 1],
    ["blocked", 1],
    ["blocked_reset_requested", 1],
    ["completed", 3],
    ["completed_after_reset", 1],
  ] as const);
}

/** Run the real completion gate on the session's state at this moment and record the check; says whether it accepted. */
function recordCheck(ctx: SessionContext, criteria: CriterionState[], tasks: GateTask[], goals: GateGoal[], observe: boolean): boolean {
  const verdict = evaluateCompletion({ criteria, tasks, contractGoals: goals });
  const at = tick(ctx, 1, 5);
  const checkId = ctx.w.insert(completionChecks, {
    sessionId: ctx.sessionId,
    accepted: verdict.accepted,
    reasons: verdict.reasons,
    metCount: verdict.metCount,
    totalCount: verdict.totalCount,
    source: "gate",
    claimedVerdict: observe ? "BAZINGA" : null,
    details: { discrepancies: verdict.discrepancies, externallyBlocked: verdict.externallyBlocked },
    actor: ORCHESTRATOR.label,
    principalId: ORCHESTRATOR.principalId,
    role: ORCHESTRATOR.role,
    at,
  });
  emit(ctx, EVENT_TYPES.completionChecked, "completion_check", checkId, ORCHESTRATOR, {
    accepted: verdict.accepted,
    met: verdict.metCount,
    total: verdict.totalCount,
  });
  return verdict.accepted;
}
