import type { Command } from "commander";
import type { Output } from "../output";

type Group = (program: Command, out: Output) => void;

/**
 * Every agent-facing and operator command, one file per group, with the top-level commands each
 * defines (commands.test.ts checks the lists against what the groups register). The
 * BAZINGA-compatible ones keep the names, positional arguments and flags of BAZINGA's
 * `bazinga_db.py`, so an orchestrator's prompts work with only the program's name changed.
 *
 * A group loads only when needed: a call names its command, so only that group's module (and the
 * schemas it checks arguments with) is evaluated; help and unknown commands load them all.
 */
export const COMMAND_GROUPS: readonly { commands: readonly string[]; load: () => Promise<Group> }[] = [
  { commands: ["create-session", "get-session", "list-sessions", "update-session-status"], load: () => import("./sessions").then((m) => m.sessionCommands) },
  { commands: ["log-interaction", "stream-logs", "log-tokens", "token-summary"], load: () => import("./logs").then((m) => m.logCommands) },
  {
    commands: [
      "save-state",
      "get-state",
      "save-skill-output",
      "get-skill-output",
      "get-skill-output-all",
      "check-skill-evidence",
      "save-development-plan",
      "get-development-plan",
      "update-plan-progress",
    ],
    load: () => import("./state").then((m) => m.stateCommands),
  },
  { commands: ["create-task-group", "update-task-group", "get-task", "get-task-groups"], load: () => import("./tasks").then((m) => m.taskCommands) },
  {
    commands: ["start", "claim", "verify", "block", "complete", "request-reset", "approve-reset", "decline-reset"],
    load: () => import("./moves").then((m) => m.moveCommands),
  },
  {
    commands: ["save-success-criteria", "get-success-criteria", "update-success-criterion", "verify-success-criterion", "check-completion"],
    load: () => import("./criteria").then((m) => m.criteriaCommands),
  },
  {
    commands: [
      "create-goal",
      "add-validation-step",
      "set-goal-contract",
      "create-branch",
      "create-worktree",
      "start-attempt",
      "record-tool-calls",
      "finish-attempt",
      "record-validation-run",
      "record-trust-score",
      "record-merge",
      "evaluate-goal",
      "get-goal-tree",
      "get-goal",
      "get-attempt",
    ],
    load: () => import("./goals").then((m) => m.goalCommands),
  },
  {
    commands: ["save-reasoning", "get-reasoning", "reasoning-timeline", "check-mandatory-phases"],
    load: () => import("./reasoning").then((m) => m.reasoningCommands),
  },
  { commands: ["save-event", "save-investigation-iteration", "get-events", "events"], load: () => import("./events").then((m) => m.eventCommands) },
  {
    commands: ["save-context-package", "get-context-packages", "mark-context-consumed", "update-context-references"],
    load: () => import("./context").then((m) => m.contextCommands),
  },
  {
    commands: [
      "save-error-pattern",
      "get-error-patterns",
      "update-error-confidence",
      "cleanup-error-patterns",
      "save-consumption",
      "get-consumption",
      "save-strategy",
      "get-strategies",
      "update-strategy-helpfulness",
      "extract-strategies",
    ],
    load: () => import("./learning").then((m) => m.learningCommands),
  },
  { commands: ["query", "integrity-check", "dashboard-snapshot"], load: () => import("./query").then((m) => m.queryCommands) },
  { commands: ["user", "token"], load: () => import("./admin").then((m) => m.adminCommands) },
  { commands: ["webhook"], load: () => import("./webhooks").then((m) => m.webhookCommands) },
  { commands: ["import"], load: () => import("./import").then((m) => m.importCommands) },
  { commands: ["check", "purge"], load: () => import("./maintenance").then((m) => m.maintenanceCommands) },
  { commands: ["copy"], load: () => import("./copy").then((m) => m.copyCommands) },
  { commands: ["init"], load: () => import("./init").then((m) => m.initCommands) },
  { commands: ["mcp"], load: () => import("./mcp-entry").then((m) => m.loadMcpCommands()) },
  { commands: ["hook"], load: () => import("./hook-command").then((m) => m.hookCommands) },
];

/** Register the group that defines `only`, or every group (in the order `proofgate help` lists them). */
export async function registerCommands(program: Command, out: Output, only?: string): Promise<void> {
  const matching = only === undefined ? [] : COMMAND_GROUPS.filter((group) => group.commands.includes(only));
  for (const group of matching.length > 0 ? matching : COMMAND_GROUPS) (await group.load())(program, out);
}
