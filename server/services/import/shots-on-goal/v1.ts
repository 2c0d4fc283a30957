import type Database from "better-sqlite3";
import { finishAttempt } from "../../attempt/finish";
import { startAttempt } from "../../attempt/start";
import { addValidationStep } from "../../goal/add-validation-step";
import { createBranch } from "../../goal/create-branch";
import { createGoal } from "../../goal/create";
import { createWorktree } from "../../goal/create-worktree";
import { type ProgressListener, noProgress } from "../../progress";
import { type ImportRun, at, eachRow } from "../run";
import { readSnapshot } from "../source";
import { commitSha, isObject, parseJson } from "../values";
import {
  RESULT_STATUS,
  Resolver,
  type Row,
  Unresolved,
  applySessionStatus,
  ensureSession,
  importToolCalls,
  int,
  label,
  stableSessionId,
  text,
  when,
} from "./common";

export const V1_ENTITIES = [
  "sessions",
  "goals",
  "breakdowns",
  "validation steps",
  "branches",
  "worktrees",
  "attempts",
  "attempt results",
  "tool calls",
] as const;

/** v1 columns Proofgate has no place for (listed when the file has them). */
export const V1_NOT_MAPPED = [
  "goals.status: Proofgate derives a goal's state from its attempts and their results",
  "goals.completed_at: Proofgate derives it from the goal's attempt results",
  "goals.goal_type: every v1 goal is worked on by implementation attempts",
  "attempts.container_id: no Proofgate column holds it",
];

/** What v1 wrote as a goal's validation_commands: a JSON list of `{command}` objects or of strings. */
function commandsOf(value: unknown): string[] {
  const parsed = parseJson(value);
  if (!Array.isArray(parsed)) return [];
  return parsed.map((c) => (isObject(c) ? text(c.command) : text(c))).filter((c): c is string => c !== null);
}

const BREAKDOWN_NOTE = "shots-on-goal v1 decomposed this goal into sub-goals; v1 kept no breakdown attempt, so the importer records this one in its place";

/**
 * shots-on-goal's v1 schema: one database per session (`session`, `goals`, `attempts`, `actions`),
 * statuses updated in place. Goals keep their tree; a decomposition (v1 sub-goals hang off their
 * parent) becomes the breakdown attempt the goal services require, marked as the importer's;
 * attempts get their branch and worktree, their actions as tool calls, and — once v1 filled in
 * the outcome — their result. Importing a later copy adds the new rows and the outcomes filled in since.
 */
export async function importShotsOnGoalV1(run: ImportRun, source: Database.Database, progress: ProgressListener = noProgress): Promise<void> {
  const all = (table: string) => source.prepare(`SELECT * FROM "${table}" ORDER BY id`).all() as Row[];
  const data = readSnapshot(source, () => ({ session: all("session"), goals: all("goals"), attempts: all("attempts"), actions: all("actions") }));
  const session = data.session[0];
  const goals = new Map(data.goals.map((row) => [int(row.id)!, row]));
  const attempts = new Map(data.attempts.map((row) => [int(row.id)!, row]));
  const parents = [...new Set(data.goals.map((g) => int(g.parent_id)).filter((p): p is number => p !== null))];
  const branchNames = new Set(
    [...data.goals.map((g) => text(g.git_branch)), ...data.attempts.map((a) => text(a.git_branch))].filter((b): b is string => b !== null),
  );
  run.tally.read("goals", data.goals.length);
  run.tally.read("breakdowns", parents.length);
  run.tally.read(
    "validation steps",
    data.goals.reduce((n, g) => n + commandsOf(g.validation_commands).length, 0),
  );
  run.tally.read("branches", branchNames.size);
  run.tally.read("worktrees", data.attempts.filter((a) => text(a.worktree_path) !== null).length);
  run.tally.read("attempts", data.attempts.length);
  run.tally.read("attempt results", data.attempts.filter((a) => text(a.outcome) !== null).length);
  run.tally.read("tool calls", data.actions.length);
  if (!session) {
    run.tally.skip("sessions", "session", "the file has no session row: there is nothing to hang its goals on");
    return;
  }
  const sessionId = stableSessionId("sog1", session.session_id, session.started_at, session.repo_path, session.description);
  const ensured = await ensureSession(run, sessionId, when(run, session.started_at), {
    requirements: text(session.description),
    repoPath: text(session.repo_path),
    initialBranch: label(session.base_branch),
  });
  const sessionOk = ensured.ok;
  const key = (...parts: unknown[]) => [sessionId, ...parts].join("|");
  const resolver = new Resolver(run);
  const needSession = () => {
    if (!sessionOk) throw new Unresolved(`its session ${sessionId} was not imported`);
  };

  const childrenOf = (parentId: number) => data.goals.filter((g) => int(g.parent_id) === parentId);

  /** The breakdown attempt standing for v1's decomposition of a goal into sub-goals. */
  const breakdown = (parentId: number): Promise<number> =>
    resolver.resolve(
      "breakdowns",
      "breakdown",
      key("breakdown", parentId),
      () => goal(parentId),
      async (goalId) => {
        const first = childrenOf(parentId)[0];
        const time = when(run, first?.created_at, goals.get(parentId)?.created_at);
        const started = await startAttempt(at(run, time), { goalId, attemptType: "breakdown" });
        await finishAttempt(at(run, time), {
          attemptId: started.attempt.id,
          status: "completed",
          statusDetail: `${BREAKDOWN_NOTE} (${childrenOf(parentId).length} sub-goals)`,
        });
        return started.attempt.id;
      },
    );

  const goal = async (id: number): Promise<number> => {
    const row = goals.get(id);
    if (!row) throw new Unresolved(`goal ${id} does not exist in the file`);
    const parent = int(row.parent_id);
    return resolver.resolve(
      "goals",
      "goal",
      key(id),
      async () => {
        needSession();
        return parent === null ? {} : { parentGoalId: await goal(parent), createdByAttemptId: await breakdown(parent) };
      },
      async (deps) => {
        const siblings = parent === null ? data.goals.filter((g) => int(g.parent_id) === null) : childrenOf(parent);
        return (
          await createGoal(at(run, when(run, row.created_at)), {
            sessionId,
            goalText: text(row.description) ?? "",
            ...deps,
            source: parent === null ? "cli" : "breakdown",
            order: siblings.findIndex((g) => int(g.id) === id) + 1,
          })
        ).id;
      },
    );
  };

  const branch = (name: string, goalId: number, reason: "goal" | "attempt", time: unknown): Promise<number> =>
    resolver.resolve(
      "branches",
      "branch",
      key("branch", name),
      () => goal(goalId),
      async (createdByGoalId) => (await createBranch(at(run, when(run, time)), { sessionId, name, reason, createdByGoalId })).id,
    );

  const worktree = (row: Row): Promise<number> =>
    resolver.resolve(
      "worktrees",
      "worktree",
      key("worktree", row.id),
      () => {
        const name = label(row.git_branch);
        if (name === null) throw new Unresolved("the attempt names no git branch for its worktree");
        return branch(name, int(row.goal_id)!, "attempt", row.started_at);
      },
      async (branchId) =>
        (
          await createWorktree(at(run, when(run, row.started_at)), {
            branchId,
            path: text(row.worktree_path) ?? "",
            startSha: commitSha(row.git_commit_sha) ?? undefined,
            reason: "attempt",
          })
        ).id,
    );

  const attempt = (row: Row): Promise<number> =>
    resolver.resolve(
      "attempts",
      "attempt",
      key(row.id),
      async () => {
        let worktreeId: number | undefined;
        // An attempt whose worktree cannot be recorded is still an attempt.
        if (text(row.worktree_path) !== null)
          await resolver.attempt(async () => {
            worktreeId = await worktree(row);
          });
        return { goalId: await goal(int(row.goal_id) ?? -1), worktreeId };
      },
      async (deps) =>
        (
          await startAttempt(at(run, when(run, row.started_at)), {
            ...deps,
            model: label(row.model_id) ?? undefined,
            startCommitSha: commitSha(row.git_commit_sha) ?? undefined,
          })
        ).attempt.id,
    );

  await eachRow(progress, "goals", goals.keys(), (id) => resolver.attempt(() => goal(id)));
  await eachRow(progress, "goals (branches, validation commands)", data.goals, async (row) => {
    const name = label(row.git_branch);
    if (name !== null) await resolver.attempt(() => branch(name, int(row.id)!, "goal", row.created_at));
    for (const [i, command] of commandsOf(row.validation_commands).entries()) {
      await resolver.attempt(() =>
        resolver.resolve(
          "validation steps",
          "validation_step",
          key("step", row.id, i),
          () => goal(int(row.id)!),
          async (goalId) => (await addValidationStep(at(run, when(run, row.created_at)), { goalId, command, order: i + 1 })).id,
        ),
      );
    }
  });
  await eachRow(progress, "attempts", attempts.values(), async (row) => {
    const calls = data.actions
      .filter((a) => int(a.attempt_id) === int(row.id))
      .map((a) => ({
        key: key("action", a.id),
        tool: label(a.tool_name) ?? "",
        input: text(a.parameters),
        output: a.result === null ? null : String(a.result),
        time: when(run, a.executed_at, row.started_at),
      }));
    const outcome = text(row.outcome);
    let attemptId: number;
    try {
      attemptId = await attempt(row);
    } catch (error) {
      if (!(error instanceof Unresolved)) throw error;
      for (const call of calls) run.tally.skip("tool calls", call.key, `its attempt was not imported (${error.message})`);
      if (outcome !== null) run.tally.skip("attempt results", key("result", row.id), `its attempt was not imported (${error.message})`);
      return;
    }
    await resolver.attempt(async () => {
      await importToolCalls(run, "tool calls", attemptId, calls, sessionId);
      if (outcome === null) return;
      await resolver.resolve(
        "attempt results",
        "attempt_result",
        key("result", row.id),
        () => attemptId,
        async (id) => {
          const status = RESULT_STATUS[outcome];
          if (!status) throw new Unresolved(`outcome ${JSON.stringify(outcome)} is not one v1 writes (success, error, llm_timeout, tool_limit_exceeded)`);
          return (
            await finishAttempt(at(run, when(run, row.completed_at, row.started_at)), {
              attemptId: id,
              status,
              endCommitSha: commitSha(row.final_commit_sha) ?? undefined,
              statusDetail: text(row.failure_reason) ?? undefined,
            })
          ).id;
        },
      );
    });
  });
  // Tool calls of attempts that could not be imported.
  for (const action of data.actions) {
    if (!attempts.has(int(action.attempt_id) ?? -1))
      run.tally.skip("tool calls", key("action", action.id), `its attempt ${String(action.attempt_id)} does not exist in the file`);
  }
  if (sessionOk) {
    const status = text(session.status);
    if (status === "completed" || status === "failed")
      await applySessionStatus(run, sessionId, status, when(run, session.completed_at, session.started_at), ensured.created);
  }
}
