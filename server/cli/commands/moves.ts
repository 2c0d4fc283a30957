import { type Command, InvalidArgumentError } from "commander";
import type { ProofCheck, Proofpack } from "@/server/domain/task-machine";
import type { TaskRow } from "@/server/services/task/load";
import { MoveTaskInput } from "@/server/services/task/schemas";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { act, example, fileOrText, int, json, sessionArg, stringList, validate, wrote } from "./shared";

/** `name=pass` / `name=fail` (also passed/failed, ok, true/false), repeatable. */
function check(value: string, previous: ProofCheck[] = []): ProofCheck[] {
  const at = value.lastIndexOf("=");
  const name = value.slice(0, at).trim();
  const result = value
    .slice(at + 1)
    .trim()
    .toLowerCase();
  const passed = ["pass", "passed", "ok", "true"].includes(result) ? true : ["fail", "failed", "false"].includes(result) ? false : undefined;
  if (at < 1 || !name || passed === undefined) throw new InvalidArgumentError("must be name=pass or name=fail");
  return [...previous, { name, passed }];
}

/** `a,b` or a JSON array of paths and links. */
function evidence(value: string): string[] {
  const text = fileOrText(value).trim();
  return text.startsWith("[")
    ? stringList(text)
    : text
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
}

/** A JSON array of failures, or one failure as plain text. */
function failures(value: string): string[] {
  const text = fileOrText(value).trim();
  return text.startsWith("[") ? stringList(text) : [text];
}

/** What every move procedure takes (the move itself is the procedure's name). */
const MoveInput = MoveTaskInput.omit({ move: true });

interface MoveOptions {
  evidence?: string[];
  proofpack?: Proofpack;
  check?: ProofCheck[];
  notes?: string;
  failures?: string[];
  reason?: string;
  expectedVersion?: number;
}

interface MoveSpec {
  name: string;
  procedure: string;
  description: string;
  example: string;
  configure?: (command: Command) => Command;
  /** The move's input besides session and task, from its flags. */
  input?: (options: MoveOptions) => Partial<MoveTaskInput>;
}

function proofpackOf(options: MoveOptions, verdict: Proofpack["verdict"]): Proofpack | undefined {
  if (options.proofpack) return options.proofpack;
  if (!options.check?.length) return undefined;
  return { verdict, checks: options.check, ...(options.notes ? { notes: options.notes } : {}) };
}

const withChecks = (command: Command) =>
  command
    .option("--proofpack <json>", "the proofpack as JSON or @file: {verdict, checks:[{name, passed, detail?}], notes?, path?}", json("object"))
    .option("--check <name=result>", "one check of the proofpack, name=pass or name=fail (repeatable)", check)
    .option("--notes <text>", "notes for the proofpack built from --check");

const MOVES: readonly MoveSpec[] = [
  {
    name: "start",
    procedure: "task.start",
    description: "Start a pending task (pending → in_progress)",
    example: "proofgate start bazinga_20250112_143022 group_a --agent-id orchestrator",
  },
  {
    name: "claim",
    procedure: "task.claim",
    description: "Claim a task is done, with evidence (pending/in_progress → claimed); someone else must verify it",
    example: "proofgate claim bazinga_20250112_143022 group_a --evidence artifacts/test-results.txt,artifacts/login.png --agent-id developer_1",
    configure: (c) => c.option("--evidence <list>", "paths or links: a,b or a JSON array (or @file)", evidence),
    input: (o) => ({ evidence: o.evidence }),
  },
  {
    name: "verify",
    procedure: "task.verify",
    description: "Verify someone else's claim with a PASSED proofpack of at least one check (claimed → verified)",
    example: "proofgate verify bazinga_20250112_143022 group_a --check unit_tests=pass --check screenshot=pass --agent-id verifier_1",
    configure: withChecks,
    input: (o) => {
      const proofpack = proofpackOf(o, "PASSED");
      if (!proofpack) throw new UsageError("--check: a verify needs at least one check (--check name=pass) or a --proofpack");
      return { proofpack };
    },
  },
  {
    name: "block",
    procedure: "task.block",
    description: "Refuse someone else's claim, listing what failed (claimed → blocked)",
    example: "proofgate block bazinga_20250112_143022 group_a --failures '[\"component_tests - 3 tests failing\"]' --agent-id verifier_1",
    configure: (c) => withChecks(c).requiredOption("--failures <json>", "what failed: a JSON array (or @file), or one failure as text", failures),
    input: (o) => ({ failures: o.failures, proofpack: proofpackOf(o, "BLOCKED") }),
  },
  {
    name: "complete",
    procedure: "task.complete",
    description: "Complete a verified task (verified → completed)",
    example: "proofgate complete bazinga_20250112_143022 group_a --agent-id orchestrator",
  },
  {
    name: "request-reset",
    procedure: "task.requestReset",
    description: "Ask a lead to reset a blocked task (it appears in the approval inbox)",
    example: 'proofgate request-reset bazinga_20250112_143022 group_a --reason "fixed the failing tests"',
    configure: (c) => c.requiredOption("--reason <text>", "why the task should be retried"),
  },
  {
    name: "approve-reset",
    procedure: "task.approveReset",
    description: "Approve a blocked task's reset (blocked → pending; the failed attempt is kept)",
    example: 'proofgate approve-reset bazinga_20250112_143022 group_a --reason "retry with the fixed fixtures" --agent-id lead@example.com',
    configure: (c) => c.requiredOption("--reason <text>", "why the reset is approved"),
  },
  {
    name: "decline-reset",
    procedure: "task.declineReset",
    description: "Decline a blocked task's reset request (the task stays blocked; the request is closed with the reason)",
    example: 'proofgate decline-reset bazinga_20250112_143022 group_a --reason "the same tests fail on main: fix them first" --agent-id lead@example.com',
    configure: (c) => c.requiredOption("--reason <text>", "why the reset is declined"),
  },
];

/** The task machine's moves, one command each: start, claim, verify, block, complete, request-reset, approve-reset, decline-reset. */
export function moveCommands(program: Command, out: Output): void {
  for (const spec of MOVES) {
    let command = program
      .command(spec.name)
      .description(spec.description)
      .argument("<session>", "session id", sessionArg)
      .argument("<task>", "the task's key (BAZINGA's group id)");
    command = spec.configure?.(command) ?? command;
    if (!command.options.some((o) => o.long === "--reason")) command.option("--reason <text>", "why (kept with the transition)");
    command.option("--expected-version <n>", "refuse with a conflict if the task changed since this version", int(1));
    example(command, spec.example).action(
      act(out, (sessionId: string, key: string, options: MoveOptions) => {
        const input = {
          sessionId,
          key,
          ...spec.input?.(options),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
          ...(options.expectedVersion === undefined ? {} : { expectedVersion: options.expectedVersion }),
        };
        validate(MoveInput, input, {
          sessionId: "session",
          key: "task",
          evidence: "--evidence",
          proofpack: "--proofpack",
          failures: "--failures",
          reason: "--reason",
        });
        return async (api) => {
          const task = await api.mutate<TaskRow>(spec.procedure, input);
          return wrote(task, `✓ ${spec.name}: task ${key} is ${task.status} (version ${task.version})`);
        };
      }),
    );
  }
}
