import type Database from "better-sqlite3";
import { ConflictError } from "@/server/domain/errors";
import { finishAttempt } from "../../attempt/finish";
import { recordValidationRun } from "../../attempt/record-validation-run";
import { startAttempt } from "../../attempt/start";
import { addValidationStep } from "../../goal/add-validation-step";
import { createBranch } from "../../goal/create-branch";
import { createGoal } from "../../goal/create";
import { createWorktree } from "../../goal/create-worktree";
import { recordMerge } from "../../goal/record-merge";
import { type ProgressListener, noProgress } from "../../progress";
import { type ImportRun, at, eachRow } from "../run";
import { recordTool } from "../session-tools";
import { readSnapshot } from "../source";
import { commitSha, isObject, parseJson } from "../values";
import { RESULT_STATUS, Resolver, type Row, Unresolved, ensureSession, importToolCalls, int, label, stableSessionId, text, when } from "./common";

export const V2_ENTITIES = [
  "sessions",
  "tools",
  "goals",
  "validation steps",
  "branches",
  "worktrees",
  "attempts",
  "attempt tools",
  "attempt results",
  "tool calls",
  "validation runs",
  "merges",
] as const;

const optional = <T>(value: T | null) => value ?? undefined;
const goalSource = (value: unknown) => (text(value) === "breakdown" ? ("breakdown" as const) : text(value) === "cli" ? ("cli" as const) : undefined);

/**
 * shots-on-goal's v2 append-only model (003), all twelve tables, into Proofgate's goal tables
 * through the goal and attempt services. Rows are imported in the order the services need
 * (a sub-goal after the breakdown attempt that proposed it, an attempt's tool calls before its
 * result, a validation run after the result it belongs to), each once; a re-import links to
 * what is already in and adds only new rows.
 */
export async function importShotsOnGoalV2(run: ImportRun, source: Database.Database, progress: ProgressListener = noProgress): Promise<void> {
  const all = (table: string) => source.prepare(`SELECT * FROM "${table}" ORDER BY id`).all() as Row[];
  const data = readSnapshot(source, () =>
    Object.fromEntries(
      [
        "session",
        "tool",
        "goal",
        "validation_step",
        "branch",
        "worktree",
        "attempt",
        "attempt_tool",
        "attempt_result",
        "tool_call",
        "validation_run",
        "merge",
      ].map((t) => [t, all(t)]),
    ),
  );
  const byId = (table: string) => new Map(data[table]!.map((row) => [int(row.id)!, row]));
  const tools = byId("tool");
  const goals = byId("goal");
  const branches = byId("branch");
  const worktrees = byId("worktree");
  const attempts = byId("attempt");
  const results = byId("attempt_result");
  const steps = byId("validation_step");
  const resolver = new Resolver(run);
  const TABLE_OF: Record<(typeof V2_ENTITIES)[number], string> = {
    sessions: "session",
    tools: "tool",
    goals: "goal",
    "validation steps": "validation_step",
    branches: "branch",
    worktrees: "worktree",
    attempts: "attempt",
    "attempt tools": "attempt_tool",
    "attempt results": "attempt_result",
    "tool calls": "tool_call",
    "validation runs": "validation_run",
    merges: "merge",
  };
  // Sessions are counted as they are ensured; every other entity reads its whole table.
  for (const entity of V2_ENTITIES.slice(1)) run.tally.read(entity, data[TABLE_OF[entity]]!.length);
  const offeredNow = new Set<string>();

  const sessionIds = new Map<number, string>();
  for (const row of data.session!) {
    const id = stableSessionId("sog", row.id, row.timestamp, row.repo_path, row.initial_goal);
    const flags = parseJson(row.flags);
    const { ok } = await ensureSession(run, id, when(run, row.timestamp), {
      requirements: text(row.initial_goal),
      models: Object.fromEntries(
        [
          ["model_a", label(row.model_a)],
          ["model_b", label(row.model_b)],
        ].filter((pair): pair is [string, string] => pair[1] !== null),
      ),
      flags: isObject(flags) ? flags : flags === undefined || flags === null ? null : { value: flags },
      repoPath: text(row.repo_path),
      initialBranch: label(row.base_branch),
    });
    if (ok) sessionIds.set(int(row.id)!, id);
  }
  const sessionOf = (sourceId: unknown): string => {
    const id = sessionIds.get(int(sourceId) ?? -1);
    if (!id) throw new Unresolved(`its session ${String(sourceId)} was not imported`);
    return id;
  };
  const key = (sessionId: string, id: unknown) => `${sessionId}|${String(id)}`;

  const tool = async (id: number): Promise<number> => {
    const row = tools.get(id);
    if (!row) throw new Unresolved(`tool ${id} does not exist in the file`);
    return resolver.resolve(
      "tools",
      "tool",
      key(sessionOf(row.session_id), id),
      () => sessionOf(row.session_id),
      async (sessionId) =>
        (await recordTool(at(run, when(run, row.timestamp)), { sessionId, name: label(row.name) ?? "", description: text(row.description) })).id,
    );
  };

  const goal = async (id: number): Promise<number> => {
    const row = goals.get(id);
    if (!row) throw new Unresolved(`goal ${id} does not exist in the file`);
    return resolver.resolve(
      "goals",
      "goal",
      key(sessionOf(row.session_id), id),
      async () => ({
        sessionId: sessionOf(row.session_id),
        parentGoalId: int(row.parent_goal_id) === null ? undefined : await goal(int(row.parent_goal_id)!),
        createdByAttemptId: int(row.created_by_attempt_id) === null ? undefined : await attempt(int(row.created_by_attempt_id)!),
      }),
      async (deps) => {
        const order = int(row.order_num);
        const input = {
          ...deps,
          goalText: text(row.goal_text) ?? "",
          source: goalSource(row.source),
          order: order === null || order < 0 ? undefined : order + 1,
        };
        const ctx = at(run, when(run, row.timestamp));
        try {
          return (await createGoal(ctx, input)).id;
        } catch (error) {
          // Two siblings with one position: keep both, the later one next in line.
          if (error instanceof ConflictError && error.rule === "goal.order_taken") return (await createGoal(ctx, { ...input, order: undefined })).id;
          throw error;
        }
      },
    );
  };

  const branch = async (id: number): Promise<number> => {
    const row = branches.get(id);
    if (!row) throw new Unresolved(`branch ${id} does not exist in the file`);
    return resolver.resolve(
      "branches",
      "branch",
      key(sessionOf(row.session_id), id),
      async () => ({
        sessionId: sessionOf(row.session_id),
        parentBranchId: int(row.parent_branch_id) === null ? undefined : await branch(int(row.parent_branch_id)!),
        createdByGoalId: int(row.created_by_goal_id) === null ? undefined : await goal(int(row.created_by_goal_id)!),
      }),
      async (deps) =>
        (
          await createBranch(at(run, when(run, row.timestamp)), {
            ...deps,
            name: label(row.name) ?? "",
            parentCommitSha: optional(commitSha(row.parent_commit_sha)),
            reason: optional(label(row.reason)),
          })
        ).id,
    );
  };

  const worktree = async (id: number): Promise<number> => {
    const row = worktrees.get(id);
    if (!row) throw new Unresolved(`worktree ${id} does not exist in the file`);
    const b = branches.get(int(row.branch_id) ?? -1);
    return resolver.resolve(
      "worktrees",
      "worktree",
      key(sessionOf(b?.session_id), id),
      () => branch(int(row.branch_id)!),
      async (branchId) =>
        (
          await createWorktree(at(run, when(run, row.timestamp)), {
            branchId,
            path: text(row.path) ?? "",
            startSha: optional(commitSha(row.start_sha)),
            reason: optional(label(row.reason)),
          })
        ).id,
    );
  };

  const offered = (attemptId: number) => data.attempt_tool!.filter((t) => int(t.attempt_id) === attemptId);

  /** An attempt whole: started with the tools it was given, its tool calls, then its result. */
  const attempt = async (id: number): Promise<number> => {
    const row = attempts.get(id);
    if (!row) throw new Unresolved(`attempt ${id} does not exist in the file`);
    const g = goals.get(int(row.goal_id) ?? -1);
    const sessionId = sessionOf(g?.session_id);
    const attemptId = await resolver.resolve(
      "attempts",
      "attempt",
      key(sessionId, id),
      async () => {
        const goalId = await goal(int(row.goal_id)!);
        const worktreeId = int(row.worktree_id) === null ? undefined : await worktree(int(row.worktree_id)!);
        const given: { name: string; description?: string }[] = [];
        for (const t of offered(id)) {
          await tool(int(t.tool_id)!);
          const def = tools.get(int(t.tool_id)!)!;
          given.push({ name: label(def.name) ?? "", ...(text(def.description) ? { description: text(def.description)! } : {}) });
        }
        return { goalId, worktreeId, tools: given };
      },
      async (deps) => {
        const started = await startAttempt(at(run, when(run, row.timestamp)), {
          ...deps,
          attemptType: text(row.attempt_type) === "breakdown" ? "breakdown" : "implementation",
          model: optional(label(row.model)),
          prompt: optional(text(row.prompt)),
          startCommitSha: optional(commitSha(row.start_commit_sha)),
        });
        for (const t of offered(id)) {
          await run.book.put("attempt_tool", key(sessionId, t.id), { targetId: started.attempt.id, sessionId }, when(run, t.timestamp));
          offeredNow.add(key(sessionId, t.id));
        }
        return started.attempt.id;
      },
    );
    return attemptId;
  };

  /** An attempt's tool calls, once per run, before its result; skipped with the reason when the attempt is not in. */
  const callsDone = new Set<number>();
  const importCalls = async (attemptSourceId: number, sessionId: string): Promise<number> => {
    const calls = data
      .tool_call!.filter((c) => int(c.attempt_id) === attemptSourceId)
      .sort((x, y) => (int(x.order_num) ?? 0) - (int(y.order_num) ?? 0) || (int(x.id) ?? 0) - (int(y.id) ?? 0))
      .map((c) => ({
        key: key(sessionId, c.id),
        tool: label(c.tool_name) ?? label(tools.get(int(c.tool_id) ?? -1)?.name) ?? "",
        input: text(c.input),
        output: c.output === null ? null : String(c.output),
        time: when(run, c.timestamp),
      }));
    let attemptId: number;
    try {
      attemptId = await attempt(attemptSourceId);
    } catch (error) {
      if (error instanceof Unresolved && !callsDone.has(attemptSourceId))
        for (const call of calls) run.tally.skip("tool calls", call.key, `its attempt was not imported (${error.message})`);
      callsDone.add(attemptSourceId);
      throw error;
    }
    if (!callsDone.has(attemptSourceId)) await importToolCalls(run, "tool calls", attemptId, calls, sessionId);
    callsDone.add(attemptSourceId);
    return attemptId;
  };

  const finishOf = async (resultRow: Row): Promise<number> => {
    const attemptSourceId = int(resultRow.attempt_id)!;
    const a = attempts.get(attemptSourceId);
    const sessionId = sessionOf(goals.get(int(a?.goal_id) ?? -1)?.session_id);
    return resolver.resolve(
      "attempt results",
      "attempt_result",
      key(sessionId, resultRow.id),
      async () => importCalls(attemptSourceId, sessionId),
      async (attemptId) => {
        const status = RESULT_STATUS[text(resultRow.status) ?? ""];
        if (!status) throw new Unresolved(`status ${JSON.stringify(resultRow.status)} is not one of success, error, timeout, tool_limit, completed`);
        return (
          await finishAttempt(at(run, when(run, resultRow.timestamp)), {
            attemptId,
            status,
            endCommitSha: optional(commitSha(resultRow.end_commit_sha)),
            diff: optional(resultRow.diff === null ? null : String(resultRow.diff)),
            statusDetail: optional(text(resultRow.status_detail)),
          })
        ).id;
      },
    );
  };

  const step = async (id: number): Promise<number> => {
    const row = steps.get(id);
    if (!row) throw new Unresolved(`validation step ${id} does not exist in the file`);
    return resolver.resolve(
      "validation steps",
      "validation_step",
      key(sessionOf(goals.get(int(row.goal_id) ?? -1)?.session_id), id),
      () => goal(int(row.goal_id)!),
      async (goalId) => {
        const order = int(row.order_num);
        return (
          await addValidationStep(at(run, when(run, row.timestamp)), {
            goalId,
            command: text(row.command) ?? "",
            order: order === null || order < 0 ? undefined : order + 1,
            source: goalSource(row.source),
          })
        ).id;
      },
    );
  };

  await eachRow(progress, "tool", tools.keys(), (id) => resolver.attempt(() => tool(id)));
  await eachRow(progress, "goal", goals.keys(), (id) => resolver.attempt(() => goal(id)));
  await eachRow(progress, "validation_step", steps.keys(), (id) => resolver.attempt(() => step(id)));
  await eachRow(progress, "branch", branches.keys(), (id) => resolver.attempt(() => branch(id)));
  await eachRow(progress, "worktree", worktrees.keys(), (id) => resolver.attempt(() => worktree(id)));
  await eachRow(progress, "attempt", attempts.keys(), (id) => resolver.attempt(() => attempt(id)));
  await eachRow(progress, "attempt_result", data.attempt_result!, (row) => resolver.attempt(() => finishOf(row)));
  // Tool calls of attempts that have no result yet (still running when the file was copied), or whose result failed.
  await eachRow(progress, "tool_call", attempts, ([id, row]) =>
    resolver.attempt(async () => importCalls(id, sessionOf(goals.get(int(row.goal_id) ?? -1)?.session_id))),
  );
  for (const call of data.tool_call!) {
    if (!attempts.has(int(call.attempt_id) ?? -1))
      run.tally.skip("tool calls", String(call.id), `its attempt ${String(call.attempt_id)} does not exist in the file`);
  }
  await eachRow(progress, "attempt_tool", data.attempt_tool!, async (row) => {
    const a = attempts.get(int(row.attempt_id) ?? -1);
    await resolver.attempt(async () => {
      const sessionId = sessionOf(goals.get(int(a?.goal_id) ?? -1)?.session_id);
      const k = key(sessionId, row.id);
      if (await run.book.get("attempt_tool", k)) {
        run.tally.count("attempt tools", offeredNow.has(k) ? "imported" : "unchanged");
        return;
      }
      run.tally.skip("attempt tools", k, "the attempt was imported before this tool was offered to it: Proofgate records an attempt's tools when it starts");
    });
  });
  await eachRow(progress, "validation_run", data.validation_run!, async (row) => {
    const r = results.get(int(row.attempt_result_id) ?? -1);
    const a = attempts.get(int(r?.attempt_id) ?? -1);
    await resolver.attempt(() =>
      resolver.resolve(
        "validation runs",
        "validation_run",
        key(sessionOf(goals.get(int(a?.goal_id) ?? -1)?.session_id), row.id),
        async () => {
          if (!r) throw new Unresolved(`attempt result ${String(row.attempt_result_id)} does not exist in the file`);
          await finishOf(r);
          return {
            attemptId: await attempt(int(r.attempt_id)!),
            validationStepId: await step(int(row.validation_step_id) ?? -1),
          };
        },
        async (deps) =>
          (
            await recordValidationRun(at(run, when(run, row.timestamp)), {
              ...deps,
              exitCode: int(row.exit_code) ?? -1,
              output: optional(row.output === null ? null : String(row.output)),
            })
          ).id,
      ),
    );
  });
  await eachRow(progress, "merge", data.merge!, async (row) => {
    const from = branches.get(int(row.from_branch_id) ?? -1);
    await resolver.attempt(() =>
      resolver.resolve(
        "merges",
        "merge",
        key(sessionOf(from?.session_id), row.id),
        async () => ({ fromBranchId: await branch(int(row.from_branch_id)!), toBranchId: await branch(int(row.to_branch_id)!) }),
        async (deps) =>
          (
            await recordMerge(at(run, when(run, row.timestamp)), {
              ...deps,
              fromCommitSha: String(row.from_commit_sha ?? ""),
              toCommitSha: String(row.to_commit_sha ?? ""),
              resultCommitSha: String(row.result_commit_sha ?? ""),
            })
          ).id,
      ),
    );
  });
}
