import { type Command, InvalidArgumentError } from "commander";
import { ValidationError } from "@/server/domain/errors";
import { type GoalContract, validateGoalContract } from "@/server/domain/goal-contract";
import type { CriterionResult } from "@/server/domain/goal-gate";
import { type PivotRecommendation, TRUST_THRESHOLD } from "@/server/domain/two-gate";
import type { AttemptDetail } from "@/server/services/attempt/get";
import type { ValidationStepRow } from "@/server/services/goal/add-validation-step";
import type { WorktreeRow } from "@/server/services/goal/create-worktree";
import type { GoalGateEvaluation } from "@/server/services/goal/evaluate";
import type { GoalDetail } from "@/server/services/goal/get";
import type { GoalNode } from "@/server/services/goal/goal-view";
import type { BranchRow, GoalRow, StoredContract } from "@/server/services/goal/load";
import type { MergeRow } from "@/server/services/goal/record-merge";
import {
  AddValidationStepInput,
  CreateBranchInput,
  CreateGoalInput,
  CreateWorktreeInput,
  EvaluateGoalGateInput,
  GoalContractLimits,
  GoalRef,
  GetGoalTreeInput,
  RecordMergeInput,
  SetGoalContractInput,
} from "@/server/services/goal/schemas";
import type { GoalTree } from "@/server/services/goal/tree";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { attemptCommands, attemptReadCommands, id } from "./attempts";
import { CheckFailed, act, example, int, json, plural, read, sessionArg, validate, wrote } from "./shared";

const order = int(1, 1_000_000);

/** 002 writes contracts in snake_case (`goal_text`, `acceptance_criteria`…); the API spells them as goal-contract.ts does. */
const CONTRACT_KEYS: Readonly<Record<string, string>> = {
  goal_text: "goalText",
  goal_type: "goalType",
  acceptance_criteria: "acceptanceCriteria",
  max_goal_attempts: "maxGoalAttempts",
};
const CRITERION_KEYS: Readonly<Record<string, string>> = { artifact_pattern: "artifactPattern", min_count: "minCount" };

function renamed(value: unknown, keys: Readonly<Record<string, string>>, where: string): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const out = new Map<string, unknown>();
  for (const [key, item] of Object.entries(value)) {
    const name = keys[key] ?? key;
    if (out.has(name)) throw new InvalidArgumentError(`${where}${name} is given twice (as ${name} and as ${Object.keys(keys).find((k) => keys[k] === name)})`);
    out.set(name, item);
  }
  // fromEntries defines own properties, so a `__proto__` key stays a (refused) field.
  return Object.fromEntries(out);
}

/** A contract as JSON (or @file), camelCase or 002's snake_case, bare or under a `goal_contract` key. */
function contractArg(value: string): unknown {
  const parsed = json("object")(value) as Record<string, unknown>;
  const keys = Object.keys(parsed);
  const inner = keys.length === 1 && (keys[0] === "goal_contract" || keys[0] === "goalContract") ? parsed[keys[0]] : parsed;
  if (inner === null || typeof inner !== "object" || Array.isArray(inner)) throw new InvalidArgumentError("goal_contract must be a JSON object");
  const contract = renamed(inner, CONTRACT_KEYS, "") as Record<string, unknown>;
  if (Array.isArray(contract.acceptanceCriteria)) {
    contract.acceptanceCriteria = contract.acceptanceCriteria.map((criterion, i) => renamed(criterion, CRITERION_KEYS, `acceptanceCriteria[${i}].`));
  }
  return contract;
}

/** The domain's own contract check, before anything is opened, naming the argument and the field. */
function checkedContract(contract: unknown): GoalContract {
  try {
    const checked = validateGoalContract(contract);
    validate(GoalContractLimits, checked, {
      goalText: "contract_json.goalText",
      goalType: "contract_json.goalType",
      acceptanceCriteria: "contract_json.acceptanceCriteria",
    });
    return checked;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const field = error.field === "goalContract" ? "contract_json" : `contract_json.${error.field}`;
    throw new UsageError(`${field}: ${error.message.slice(error.field.length + 2)} (${error.rule})`);
  }
}

const criteria = (n: number) => `${n} acceptance criteri${n === 1 ? "on" : "a"}`;

const shown = (value: unknown) => (value === null || value === undefined ? "none" : String(value));

/** `attempt 2 of 3`, or `attempt 2` without a contract. */
const attemptLabel = (n: number, max: number | null) => `attempt ${n}${max === null ? "" : ` of ${max}`}`;

function evaluationText(goalId: number, e: GoalGateEvaluation): string {
  const results = e.criteriaResults as CriterionResult[];
  const pivot = e.pivot as PivotRecommendation | null;
  const width = Math.max(0, ...results.map((r) => r.criterionId.length));
  const lines = [
    `Goal ${goalId}, ${attemptLabel(e.attemptNumber, e.maxAttempts)} (attempt #${e.attemptId}): ${e.verdict}`,
    `  reason: ${e.reason}`,
    `Trust gate: ${e.trustPassed ? "PASSED" : "FAILED"} (score ${shown(e.trustScore)}, needs ${TRUST_THRESHOLD})`,
    `Goal gate: ${e.goalStatus} — ${e.summary}`,
    ...results.map((r) => `  ${r.criterionId.padEnd(width)}  ${r.status.padEnd(7)}  ${r.subject}: actual ${shown(r.actual)}, target ${r.target}`),
  ];
  if (pivot) {
    const left = pivot.attemptsLeft === null ? "" : ` (${plural(pivot.attemptsLeft, "attempt")} left)`;
    lines.push(`Pivot: ${pivot.unachievable ? "goal looks unachievable" : pivot.shouldPivot ? "try another approach" : "no pivot"}${left}`);
    lines.push(...pivot.suggestions.map((s) => `  - ${s}`));
  }
  return lines.join("\n");
}

function treeLines(node: GoalNode, depth: number): string[] {
  const pad = "  ".repeat(depth);
  const g = node.goal;
  const origin = g.source === "breakdown" ? `, from breakdown attempt #${g.createdByAttemptId}` : "";
  const used = node.maxAttempts === null ? plural(node.attemptsUsed, "attempt") : `${node.attemptsUsed}/${node.maxAttempts} attempts`;
  const contract = node.contract ? `, contract of ${criteria(node.contract.criteria.length)}` : "";
  const head = `${pad}#${g.id} [${g.order}] ${g.goalText} — ${node.verdict ?? "not evaluated"}, ${used}${contract}${origin}`;
  const attempts = node.attempts.map((a) => {
    const extras = [
      a.model,
      a.status ?? "running",
      plural(a.toolCallCount, "tool call"),
      a.latestTrustScore === null ? null : `trust ${a.latestTrustScore}`,
      a.latestEvaluation?.verdict ?? null,
    ];
    return `${pad}    · attempt #${a.id} (${a.label}): ${extras.filter((x) => x !== null).join(", ")}`;
  });
  return [head, ...attempts, ...node.children.flatMap((child) => treeLines(child, depth + 1))];
}

/** Shots on goal (003) with goal contracts and the two gates (002): goals, validation steps, git state, attempts, the goal gate. */
export function goalCommands(program: Command, out: Output): void {
  example(
    program
      .command("create-goal")
      .description("Create a goal in a session: a root goal, or a sub-goal (--parent); a breakdown sub-goal names the breakdown attempt that proposed it")
      .argument("<session>", "session id", sessionArg)
      .argument("<goal_text>", "what is to be achieved")
      .option("--parent <goal_id>", "the parent goal (makes a sub-goal)", id)
      .option("--created-by-attempt <attempt_id>", "the breakdown attempt on the parent that proposed this sub-goal", id)
      .option("--order <n>", "position among its siblings (default: next)", order),
    'proofgate create-goal bazinga_20250112_143022 "Migrate the build to Bazel" --agent-id orchestrator',
    'proofgate create-goal bazinga_20250112_143022 "Port //app to Bazel" --parent 1 --created-by-attempt 4',
  ).action(
    act(out, (sessionId: string, goalText: string, options: { parent?: number; createdByAttempt?: number; order?: number }) => {
      const input = validate(
        CreateGoalInput,
        { sessionId, goalText, parentGoalId: options.parent, createdByAttemptId: options.createdByAttempt, order: options.order },
        { sessionId: "session", goalText: "goal_text", parentGoalId: "--parent", createdByAttemptId: "--created-by-attempt", order: "--order" },
      );
      return async (api) => {
        const goal = await api.mutate<GoalRow>("goal.create", input);
        const where = goal.parentGoalId === null ? `root goal ${goal.order}` : `sub-goal ${goal.order} of goal ${goal.parentGoalId}`;
        const origin = goal.createdByAttemptId === null ? "" : `, from breakdown attempt ${goal.createdByAttemptId}`;
        return wrote(goal, `✓ Created goal ${goal.id} in session ${goal.sessionId} (${where}${origin})`);
      };
    }),
  );

  example(
    program
      .command("add-validation-step")
      .description("Add a shell command that exits 0 when the goal is achieved; steps run in order")
      .argument("<goal_id>", "the goal's id", id)
      .argument("<command>", "the command, e.g. 'bazel build //...'")
      .option("--order <n>", "position among the goal's steps (default: next)", order),
    "proofgate add-validation-step 1 'bazel build //...'",
  ).action(
    act(out, (goalId: number, command: string, options: { order?: number }) => {
      const input = validate(AddValidationStepInput, { goalId, command, order: options.order }, { goalId: "goal_id", command: "command", order: "--order" });
      return async (api) => {
        const step = await api.mutate<ValidationStepRow>("goal.addValidationStep", input);
        return wrote(step, `✓ Added validation step ${step.id} (#${step.order}) to goal ${goalId}: ${step.command}`);
      };
    }),
  );

  example(
    program
      .command("set-goal-contract")
      .description(
        "Set a goal's contract: goal text, acceptance criteria (metric_threshold, marker_required, artifact_exists, finding_count), max goal attempts (default 3). " +
          "camelCase as in the API, or 002's snake_case keys (goal_text, acceptance_criteria, max_goal_attempts), bare or under goal_contract. Replaceable until an attempt is evaluated against it",
      )
      .argument("<goal_id>", "the goal's id", id)
      .argument("<contract_json>", "the contract as JSON or @file", contractArg),
    'proofgate set-goal-contract 1 \'{"goal_text":"Build model with >= 90% accuracy","acceptance_criteria":[{"id":"AC1","kind":"metric_threshold","metric":"cv_accuracy_mean","op":">=","target":0.9}]}\'',
    "proofgate set-goal-contract 1 @contract.json --agent-id orchestrator",
  ).action(
    act(out, (goalId: number, contract: unknown) => {
      validate(SetGoalContractInput, { goalId, contract }, { goalId: "goal_id" });
      const checked = checkedContract(contract);
      return async (api) => {
        const stored = await api.mutate<StoredContract>("goal.setContract", { goalId, contract });
        return wrote(
          stored,
          `✓ Goal ${goalId}'s contract: ${criteria(checked.acceptanceCriteria.length)}, at most ${plural(stored.row.maxGoalAttempts, "attempt")}`,
        );
      };
    }),
  );

  example(
    program
      .command("create-branch")
      .description("Record a git branch of the session (its name is taken once per session)")
      .argument("<session>", "session id", sessionArg)
      .argument("<name>", "the branch name")
      .option("--parent-branch <branch_id>", "the branch it was created from", id)
      .option("--parent-commit <sha>", "the commit it diverged at")
      .option("--reason <reason>", "why it was made, e.g. goal or attempt")
      .option("--created-by-goal <goal_id>", "the goal it was made for", id),
    "proofgate create-branch bazinga_20250112_143022 goal-1 --parent-branch 1 --parent-commit 3f2a9c1 --reason goal --created-by-goal 1",
  ).action(
    act(out, (sessionId: string, name: string, options: { parentBranch?: number; parentCommit?: string; reason?: string; createdByGoal?: number }) => {
      const input = validate(
        CreateBranchInput,
        {
          sessionId,
          name,
          parentBranchId: options.parentBranch,
          parentCommitSha: options.parentCommit,
          reason: options.reason,
          createdByGoalId: options.createdByGoal,
        },
        {
          sessionId: "session",
          name: "name",
          parentBranchId: "--parent-branch",
          parentCommitSha: "--parent-commit",
          reason: "--reason",
          createdByGoalId: "--created-by-goal",
        },
      );
      return async (api) => {
        const branch = await api.mutate<BranchRow>("goal.createBranch", input);
        return wrote(branch, `✓ Created branch ${branch.id} (${branch.name}) in session ${sessionId}`);
      };
    }),
  );

  example(
    program
      .command("create-worktree")
      .description("Record a git worktree tracking a branch; each attempt runs in its own")
      .argument("<branch_id>", "the branch it tracks", id)
      .argument("<path>", "the worktree's path")
      .option("--start-sha <sha>", "the commit it starts at")
      .option("--reason <reason>", "why it was made, e.g. attempt"),
    "proofgate create-worktree 2 /tmp/worktrees/goal-1-attempt-1 --start-sha 3f2a9c1 --reason attempt",
  ).action(
    act(out, (branchId: number, path: string, options: { startSha?: string; reason?: string }) => {
      const input = validate(
        CreateWorktreeInput,
        { branchId, path, startSha: options.startSha, reason: options.reason },
        { branchId: "branch_id", path: "path", startSha: "--start-sha", reason: "--reason" },
      );
      return async (api) => {
        const worktree = await api.mutate<WorktreeRow>("goal.createWorktree", input);
        return wrote(worktree, `✓ Created worktree ${worktree.id} at ${worktree.path} on branch ${branchId}`);
      };
    }),
  );

  attemptCommands(program, out);

  example(
    program
      .command("record-merge")
      .description("Record a successful merge of one branch into another (failed merges are not recorded)")
      .argument("<from_branch_id>", "the branch merged", id)
      .argument("<to_branch_id>", "the branch merged into", id)
      .requiredOption("--from-commit <sha>", "the merged branch's commit")
      .requiredOption("--to-commit <sha>", "the target branch's commit before the merge")
      .requiredOption("--result-commit <sha>", "the merge commit"),
    "proofgate record-merge 2 1 --from-commit 9b1e44d --to-commit 3f2a9c1 --result-commit 77c0de1",
  ).action(
    act(out, (fromBranchId: number, toBranchId: number, options: { fromCommit: string; toCommit: string; resultCommit: string }) => {
      const input = validate(
        RecordMergeInput,
        { fromBranchId, fromCommitSha: options.fromCommit, toBranchId, toCommitSha: options.toCommit, resultCommitSha: options.resultCommit },
        {
          fromBranchId: "from_branch_id",
          toBranchId: "to_branch_id",
          fromCommitSha: "--from-commit",
          toCommitSha: "--to-commit",
          resultCommitSha: "--result-commit",
        },
      );
      if (fromBranchId === toBranchId) throw new UsageError("to_branch_id: a branch is not merged into itself");
      return async (api) => {
        const merge = await api.mutate<MergeRow>("goal.recordMerge", input);
        return wrote(merge, `✓ Recorded merge ${merge.id}: branch ${fromBranchId} into ${toBranchId} (${merge.resultCommitSha})`);
      };
    }),
  );

  example(
    program
      .command("evaluate-goal")
      .description(
        "Judge a finished attempt with the two gates (trust score ≥ 80, and the goal contract's criteria) and record the verdict. " +
          "Prints each criterion MET/NOT_MET with actual vs target and what to try next; exit 0 for SUCCESS, 1 for PARTIAL or BLOCKED",
      )
      .argument("<goal_id>", "the goal's id", id)
      .argument("<attempt_id>", "the attempt to judge (an implementation attempt at that goal)", id),
    "proofgate evaluate-goal 1 5 --agent-id verifier_1",
  ).action(
    act(out, (goalId: number, attemptId: number) => {
      const input = validate(EvaluateGoalGateInput, { attemptId }, { attemptId: "attempt_id" });
      return async (api) => {
        const { attempt } = await api.query<AttemptDetail>("attempt.get", { attemptId, limit: 1 });
        if (attempt.goalId !== goalId) {
          await api.query<GoalDetail>("goal.get", { goalId }); // an unknown goal is "not found" (exit 3)
          throw new UsageError(`goal_id: attempt ${attemptId} works on goal ${attempt.goalId}, not goal ${goalId}`);
        }
        const evaluation = await api.mutate<GoalGateEvaluation>("goal.evaluate", input);
        const trust = evaluation.trustPassed ? "" : `; trust score ${shown(evaluation.trustScore)} is below ${TRUST_THRESHOLD}`;
        const fail =
          evaluation.verdict === "SUCCESS"
            ? undefined
            : new CheckFailed(
                `goal_gate.${evaluation.verdict.toLowerCase()}`,
                `goal ${goalId} is ${evaluation.verdict} after ${attemptLabel(evaluation.attemptNumber, evaluation.maxAttempts)}: ${evaluation.summary}${trust}`,
              );
        return { data: evaluation, text: evaluationText(goalId, evaluation), fail };
      };
    }),
  );

  example(
    program
      .command("get-goal-tree")
      .description(
        "Show a session's goals as a tree: each goal's verdict, attempts (n of max, status, tool calls, trust, verdict) and sub-goals; --json for everything",
      )
      .argument("<session>", "session id", sessionArg),
    "proofgate get-goal-tree bazinga_20250112_143022",
    "proofgate --json get-goal-tree bazinga_20250112_143022",
  ).action(
    act(out, (sessionId: string) => {
      const input = validate(GetGoalTreeInput, { sessionId }, { sessionId: "session" });
      return async (api) => {
        const tree = await api.query<GoalTree>("goal.tree", input);
        const text =
          tree.goals.length === 0
            ? `Session ${sessionId} has no goals`
            : [`Goals of session ${sessionId}:`, ...tree.goals.flatMap((node) => treeLines(node, 1))].join("\n");
        return read(tree, text);
      };
    }),
  );

  example(
    program
      .command("get-goal")
      .description("Show one goal: contract, validation steps, attempts, evaluations, branches and sub-goals")
      .argument("<goal_id>", "the goal's id", id),
    "proofgate get-goal 1",
  ).action(
    act(out, (goalId: number) => {
      const input = validate(GoalRef, { goalId }, { goalId: "goal_id" });
      return async (api) => read(await api.query<GoalDetail>("goal.get", input));
    }),
  );

  attemptReadCommands(program, out);
}
