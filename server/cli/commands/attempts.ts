import { type Command, InvalidArgumentError } from "commander";
import { ATTEMPT_RESULT_STATUSES, ATTEMPT_TYPES } from "@/server/domain/vocabulary";
import { parseMarkers } from "@/server/domain/markers";
import { TRUST_THRESHOLD } from "@/server/domain/two-gate";
import type { AttemptDetail } from "@/server/services/attempt/get";
import type { AttemptResultRow } from "@/server/services/attempt/load";
import type { RecordedToolCalls } from "@/server/services/attempt/record-tool-calls";
import type { TrustScoreRow } from "@/server/services/attempt/record-trust-score";
import type { ValidationRunRow } from "@/server/services/attempt/record-validation-run";
import {
  FinishAttemptInput,
  GetAttemptInput,
  RecordToolCallsInput,
  RecordTrustScoreInput,
  RecordValidationRunInput,
  StartAttemptInput,
  type ToolSpec,
} from "@/server/services/attempt/schemas";
import type { StartedAttempt } from "@/server/services/attempt/start";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { act, example, fileOrText, int, json, oneOf, plural, read, readText, stringList, validate, wrote } from "./shared";

/** A row id argument (goal, attempt, step, branch, worktree): a positive integer. */
export const id = int(1);

/** `a,b,c` or a JSON array (or `@file`) of strings. */
export function list(value: string): string[] {
  const text = fileOrText(value).trim();
  return text.startsWith("[")
    ? stringList(text)
    : text
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
}

/** `a,b,c`, or a JSON array (or `@file`) of names and `{name, description}` objects. */
function toolList(value: string): ToolSpec[] {
  const text = fileOrText(value).trim();
  if (!text.startsWith("[")) return list(text);
  const parsed = json("array")(text) as unknown[];
  if (!parsed.every((item) => typeof item === "string" || (item !== null && typeof item === "object" && !Array.isArray(item)))) {
    throw new InvalidArgumentError("must be a,b,c or a JSON array of tool names or {name, description} objects");
  }
  return parsed as ToolSpec[];
}

function score(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError("must be a number from 0 to 100");
  return n;
}

const exitCode = int(-2_147_483_648, 2_147_483_647);

interface StartOptions {
  type?: (typeof ATTEMPT_TYPES)[number];
  model?: string;
  prompt?: string;
  promptFile?: string;
  startCommit?: string;
  worktree?: number;
  tools?: ToolSpec[];
}

interface FinishOptions {
  endCommit?: string;
  diffFile?: string;
  detail?: string;
  metrics?: Record<string, unknown>;
  markers?: string[];
  artifacts?: string[];
  findings?: number;
  outputFile?: string;
}

function evidenceText(result: AttemptResultRow): string {
  const metrics = Object.keys(result.metrics ?? {}).length;
  const markerLines = result.output === null ? 0 : parseMarkers(result.output).length;
  const parts = [
    plural(metrics, "metric"),
    plural(result.markers?.length ?? 0, "marker"),
    plural(result.artifacts?.length ?? 0, "artifact"),
    plural(result.verifiedFindings ?? 0, "verified finding"),
    ...(result.output === null ? [] : [`${plural(markerLines, "marker line")} in the output`]),
  ];
  return parts.join(", ");
}

/** Attempts at a goal (shots on goal): start-attempt, record-tool-calls, finish-attempt, record-validation-run, record-trust-score. */
export function attemptCommands(program: Command, out: Output): void {
  example(
    program
      .command("start-attempt")
      .description("Start an attempt at a goal: its type, model, prompt, start commit, worktree and the tools it is given")
      .argument("<goal_id>", "the goal's id", id)
      .option("--type <type>", `${ATTEMPT_TYPES.join(" or ")} (default implementation)`, oneOf(ATTEMPT_TYPES))
      .option("--model <model>", "the model, e.g. openrouter/anthropic/claude-sonnet-4.5")
      .option("--prompt <text>", "the prompt sent to the model")
      .option("--prompt-file <file>", "read the prompt from this file", readText)
      .option("--start-commit <sha>", "git commit at the start")
      .option("--worktree <id>", "the worktree it runs in", id)
      .option("--tools <list>", "tools made available: a,b,c or a JSON array (or @file) of names or {name, description}", toolList),
    "proofgate start-attempt 1 --model openrouter/anthropic/claude-sonnet-4.5 --prompt-file prompt.md --start-commit 3f2a9c1 --tools read_file,write_file --agent-id developer_1",
    "proofgate start-attempt 1 --type breakdown --tools read_file,list_directory --agent-id orchestrator",
  ).action(
    act(out, (goalId: number, options: StartOptions) => {
      if (options.prompt !== undefined && options.promptFile !== undefined) throw new UsageError("--prompt: give --prompt or --prompt-file, not both");
      const input = validate(
        StartAttemptInput,
        {
          goalId,
          attemptType: options.type,
          model: options.model,
          prompt: options.prompt ?? options.promptFile,
          startCommitSha: options.startCommit,
          worktreeId: options.worktree,
          tools: options.tools,
        },
        {
          goalId: "goal_id",
          attemptType: "--type",
          model: "--model",
          prompt: options.promptFile === undefined ? "--prompt" : "--prompt-file",
          startCommitSha: "--start-commit",
          worktreeId: "--worktree",
          tools: "--tools",
        },
      );
      return async (api) => {
        const started = await api.mutate<StartedAttempt>("attempt.start", input);
        const { attempt, tools } = started;
        const given = tools.length > 0 ? ` with ${plural(tools.length, "tool")} (${tools.map((t) => t.name).join(", ")})` : "";
        return wrote(started, `✓ Started ${attempt.attemptType} attempt ${attempt.id} on goal ${goalId}${attempt.model ? ` (${attempt.model})` : ""}${given}`);
      };
    }),
  );

  example(
    program
      .command("record-tool-calls")
      .description("Append a batch of an attempt's tool calls in one transaction, numbered on from its last call (secrets are redacted)")
      .argument("<attempt_id>", "the attempt's id", id)
      .argument("<calls_json>", "JSON array (or @file) of {tool, input?, output?}; input is a JSON object or text", json("array")),
    'proofgate record-tool-calls 5 \'[{"tool":"read_file","input":{"path":"BUILD"},"output":"cc_library(...)"}]\'',
    "proofgate record-tool-calls 5 @calls.json --agent-id developer_1",
  ).action(
    act(out, (attemptId: number, calls: unknown[]) => {
      const input = validate(RecordToolCallsInput, { attemptId, calls }, { attemptId: "attempt_id", calls: "calls_json" });
      return async (api) => {
        const recorded = await api.mutate<RecordedToolCalls>("attempt.toolCalls", input);
        const redacted = recorded.redacted > 0 ? `; secrets redacted in ${plural(recorded.redacted, "call")}` : "";
        return wrote(
          recorded,
          `✓ Recorded ${plural(recorded.count, "tool call")} for attempt ${attemptId} (#${recorded.firstOrder}–#${recorded.lastOrder}${redacted})`,
        );
      };
    }),
  );

  example(
    program
      .command("finish-attempt")
      .description("Record how an attempt ended, once, with the evidence the goal gate reads: metrics, markers, artifacts, verified findings and output")
      .argument("<attempt_id>", "the attempt's id", id)
      .argument("<status>", ATTEMPT_RESULT_STATUSES.join(", "), oneOf(ATTEMPT_RESULT_STATUSES))
      .option("--end-commit <sha>", "git commit at the end")
      .option("--diff-file <file>", "the diff the attempt produced", readText)
      .option("--detail <text>", "status detail, e.g. the error message")
      .option(
        "--metrics <json>",
        'metric values as a JSON object (or @file), e.g. {"cv_accuracy_mean":0.85}; they win over METRIC lines in the output',
        json("object"),
      )
      .option("--markers <list>", "marker keys: a,b or a JSON array, e.g. METRIC:baseline_accuracy,FINDING", list)
      .option("--artifacts <list>", "paths of the files produced: a,b or a JSON array", list)
      .option("--findings <n>", "findings a verifier confirmed", int(0, 1_000_000))
      .option("--output-file <file>", "the attempt's raw output; its marker lines ([METRIC:cv_accuracy_mean] 0.85) count as evidence", readText),
    "proofgate finish-attempt 5 completed --end-commit 9b1e44d --output-file run.log --artifacts models/churn.pkl --findings 2 --agent-id developer_1",
    "proofgate finish-attempt 5 completed --metrics '{\"cv_accuracy_mean\":0.78}' --markers METRIC:baseline_accuracy",
  ).action(
    act(out, (attemptId: number, status: string, options: FinishOptions) => {
      const input = validate(
        FinishAttemptInput,
        {
          attemptId,
          status,
          endCommitSha: options.endCommit,
          diff: options.diffFile,
          statusDetail: options.detail,
          metrics: options.metrics,
          markers: options.markers,
          artifacts: options.artifacts,
          verifiedFindings: options.findings,
          output: options.outputFile,
        },
        {
          attemptId: "attempt_id",
          status: "status",
          endCommitSha: "--end-commit",
          diff: "--diff-file",
          statusDetail: "--detail",
          metrics: "--metrics",
          markers: "--markers",
          artifacts: "--artifacts",
          verifiedFindings: "--findings",
          output: "--output-file",
        },
      );
      return async (api) => {
        const result = await api.mutate<AttemptResultRow>("attempt.finish", input);
        return wrote(result, `✓ Attempt ${attemptId} finished: ${result.status} — evidence: ${evidenceText(result)}`);
      };
    }),
  );

  example(
    program
      .command("record-validation-run")
      .description("Record one run of a goal's validation step against a finished attempt (exit code 0 = passed)")
      .argument("<attempt_id>", "the attempt's id", id)
      .argument("<step_id>", "the validation step's id", id)
      .argument("<exit_code>", "the command's exit code (0 = passed; put -- before a negative one)", exitCode)
      .option("--output-file <file>", "the command's captured stdout and stderr", readText),
    "proofgate record-validation-run 5 2 0 --output-file bazel-build.log --agent-id orchestrator",
  ).action(
    act(out, (attemptId: number, validationStepId: number, code: number, options: { outputFile?: string }) => {
      const input = validate(
        RecordValidationRunInput,
        { attemptId, validationStepId, exitCode: code, output: options.outputFile },
        { attemptId: "attempt_id", validationStepId: "step_id", exitCode: "exit_code", output: "--output-file" },
      );
      return async (api) => {
        const run = await api.mutate<ValidationRunRow>("attempt.validationRun", input);
        return wrote(
          run,
          `✓ Validation step ${validationStepId} on attempt ${attemptId}: ${run.exitCode === 0 ? "passed" : "failed"} (exit ${run.exitCode}, run #${run.id})`,
        );
      };
    }),
  );

  example(
    program
      .command("record-trust-score")
      .description(
        `A verifier's trust score (0–100) for a finished attempt's evidence; the trust gate passes at ${TRUST_THRESHOLD}. Whoever recorded the attempt may not score it`,
      )
      .argument("<attempt_id>", "the attempt's id", id)
      .argument("<score>", `0 to 100; the trust gate passes at ${TRUST_THRESHOLD}`, score)
      .option("--notes <text>", "what the verifier checked"),
    'proofgate record-trust-score 5 88 --notes "CV folds reproduced; baseline confirmed" --agent-id verifier_1',
  ).action(
    act(out, (attemptId: number, value: number, options: { notes?: string }) => {
      const input = validate(
        RecordTrustScoreInput,
        { attemptId, score: value, notes: options.notes },
        { attemptId: "attempt_id", score: "score", notes: "--notes" },
      );
      return async (api) => {
        const row = await api.mutate<TrustScoreRow>("attempt.trustScore", input);
        const gate = row.score >= TRUST_THRESHOLD ? "passes" : "fails";
        return wrote(row, `✓ Trust score ${row.score} for attempt ${attemptId} by ${row.actor} (the trust gate ${gate}: it needs ${TRUST_THRESHOLD})`);
      };
    }),
  );
}

/** get-attempt: one attempt with its tools, result, a page of tool calls, validation runs, trust scores and evaluations. */
export function attemptReadCommands(program: Command, out: Output): void {
  example(
    program
      .command("get-attempt")
      .description("Show an attempt: tools, result, a page of tool calls in order, validation runs, trust scores and evaluations")
      .argument("<attempt_id>", "the attempt's id", id)
      .option("--cursor <n>", "the last tool-call order already seen (pages start after it)", int(0))
      .option("--limit <n>", "tool calls per page (1–500, default 100)", int(1, 500)),
    "proofgate get-attempt 5 --limit 50",
    "proofgate get-attempt 5 --cursor 50 --limit 50",
  ).action(
    act(out, (attemptId: number, options: { cursor?: number; limit?: number }) => {
      const input = validate(
        GetAttemptInput,
        { attemptId, cursor: options.cursor, limit: options.limit },
        { attemptId: "attempt_id", cursor: "--cursor", limit: "--limit" },
      );
      return async (api) => read(await api.query<AttemptDetail>("attempt.get", input));
    }),
  );
}
