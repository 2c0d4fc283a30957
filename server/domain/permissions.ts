/**
 * Who may do what: one table from every action to the roles that may take it. Services authorize
 * through `authorize`, the task machine reads its moves' roles from here, the dashboard offers only
 * what the viewer's role may do, the settings page summarises it, and the README prints it (a test
 * keeps the printed table equal to this one). Rules that depend on the data — "never the claimant",
 * "not your own attempt" — are not here: they live beside the state they read (task-machine.ts,
 * attempt-lifecycle.ts).
 */
import { type Actor, ROLES, type Role, USER_ROLES } from "./actors";
import { RoleForbiddenError } from "./errors";

export interface Permission {
  /** The roles that may take the action. */
  roles: readonly Role[];
  /** The rule a refusal names (stable: agents and tests match on it). */
  rule: string;
  /** What the action does, as it reads after "may not": `create sessions`. */
  does: string;
  /** Where it belongs, for the summaries. */
  area: PermissionArea;
  /**
   * Its writes make or change credentials (tokens, users and their roles, webhooks and their
   * secrets): refused to a request made with a person's API token, which must not outlive the
   * person who made it (personal-tokens.ts). Reads are not.
   */
  credentials?: true;
}

/** The rule a write to a `credentials` action through a personal API token is refused as. */
export const CREDENTIALS_FROM_TOKEN_RULE = "admin.credentials_from_personal_token";

export const PERMISSION_AREAS = [
  "read",
  "sessions",
  "task moves",
  "criteria and completion",
  "goals and attempts",
  "telemetry",
  "personal API tokens",
  "administration",
] as const;
export type PermissionArea = (typeof PERMISSION_AREAS)[number];

const ALL: readonly Role[] = ROLES;
/** People who decide: approve resets, switch enforcement, decide what is required. */
const HUMANS: readonly Role[] = ["lead", "admin"];
/** Those who report work and its plan: agents, orchestrators, and a lead acting for them. */
const WRITERS: readonly Role[] = ["agent", "orchestrator", "lead", "admin"];
/** Those who judge work: verifiers and leads, never in the same breath as recording it. */
const JUDGES: readonly Role[] = ["verifier", "lead", "admin"];
/**
 * The executors' record of what an attempt did. Leads plan (goals, contracts) but do not record
 * attempts: that record is the executors', so a human's word never stands in for it. A verifier
 * judges (scores, evaluates) and never records the work it judges.
 */
const RECORDERS: readonly Role[] = ["agent", "orchestrator", "admin"];
/** Everyone who acts in a session logs; viewers only read. */
const LOGGERS: readonly Role[] = ["agent", "orchestrator", "verifier", "lead", "admin"];
const ADMIN: readonly Role[] = ["admin"];
/**
 * The roles a person who signs in holds. A personal API token belongs to a person, so only they
 * manage one; agent tokens (agent, verifier, orchestrator) have no owner. Whether the caller really
 * is a person, and not an agent token with a person's role, is checked where the owner is read
 * (personal-tokens.ts).
 */
const PEOPLE: readonly Role[] = USER_ROLES;

/**
 * The table. Action names match the API's procedure paths where one exists (`task.claim`), so the
 * roles-matrix test can find each procedure's row; `admin` may take every action (local mode acts
 * as the machine's operator with admin rights), still never as a claimant judging its own claim.
 */
export const PERMISSIONS = {
  read: { roles: ALL, rule: "read.role", does: "read the ledger", area: "read" },

  "session.create": { roles: WRITERS, rule: "session.create_role", does: "create sessions", area: "sessions" },
  "session.updateStatus": { roles: ["orchestrator", "lead", "admin"], rule: "session.status_role", does: "change a session's status", area: "sessions" },
  "session.setEnforcement": { roles: HUMANS, rule: "session.enforcement_role", does: "change a session's enforcement", area: "sessions" },

  "task.create": { roles: WRITERS, rule: "task.create_role", does: "create tasks", area: "task moves" },
  "task.report": { roles: WRITERS, rule: "task.report_role", does: "report task status", area: "task moves" },
  "task.start": { roles: ["agent", "orchestrator", "admin"], rule: "task.start_role", does: "start a task", area: "task moves" },
  "task.claim": { roles: ["agent", "admin"], rule: "task.claim_role", does: "claim a task", area: "task moves" },
  "task.verify": { roles: JUDGES, rule: "task.verify_role", does: "verify a task", area: "task moves" },
  "task.block": { roles: JUDGES, rule: "task.block_role", does: "block a task", area: "task moves" },
  "task.complete": { roles: ["orchestrator", "lead", "admin"], rule: "task.complete_role", does: "complete a task", area: "task moves" },
  "task.requestReset": { roles: ["orchestrator", "agent", "admin"], rule: "task.request_reset_role", does: "request a reset of a task", area: "task moves" },
  "task.approveReset": { roles: HUMANS, rule: "task.approve_reset_role", does: "approve a reset of a task", area: "task moves" },
  "task.declineReset": { roles: HUMANS, rule: "task.decline_reset_role", does: "decline a reset request (the task stays blocked)", area: "task moves" },
  // The inbox's bulk decisions: the single moves' roles and rules, since each task is that move.
  "task.approveResets": { roles: HUMANS, rule: "task.approve_reset_role", does: "approve the resets of several tasks at once", area: "task moves" },
  "task.declineResets": { roles: HUMANS, rule: "task.decline_reset_role", does: "decline the reset requests of several tasks at once", area: "task moves" },

  "criteria.save": { roles: WRITERS, rule: "criteria.report_role", does: "save success criteria", area: "criteria and completion" },
  "criteria.update": { roles: WRITERS, rule: "criteria.report_role", does: "update success criteria", area: "criteria and completion" },
  "criteria.verify": { roles: JUDGES, rule: "criteria.verify_role", does: "record a verifier finding on a criterion", area: "criteria and completion" },
  "criteria.setRequired": {
    roles: HUMANS,
    rule: "criteria.required_flag_role",
    does: "change whether a criterion is required for completion (a lead must)",
    area: "criteria and completion",
  },
  "completion.check": {
    roles: ["agent", "verifier", "orchestrator", "lead", "admin"],
    rule: "completion.check_role",
    does: "run the completion check",
    area: "criteria and completion",
  },
  "completion.recordClaim": {
    roles: ["orchestrator", "lead", "admin"],
    rule: "completion.claim_role",
    does: "record completion claims",
    area: "criteria and completion",
  },

  "goal.create": { roles: WRITERS, rule: "goal.create_role", does: "create goals", area: "goals and attempts" },
  "goal.addValidationStep": { roles: WRITERS, rule: "validation_step.create_role", does: "add validation steps", area: "goals and attempts" },
  "goal.setContract": { roles: WRITERS, rule: "goal_contract.set_role", does: "set goal contracts", area: "goals and attempts" },
  "goal.createBranch": { roles: WRITERS, rule: "branch.create_role", does: "create branches", area: "goals and attempts" },
  "goal.createWorktree": { roles: RECORDERS, rule: "worktree.create_role", does: "create worktrees", area: "goals and attempts" },
  "goal.recordMerge": { roles: RECORDERS, rule: "merge.record_role", does: "record merges", area: "goals and attempts" },
  "goal.evaluate": {
    roles: ["verifier", "orchestrator", "lead", "admin"],
    rule: "goal_gate.evaluate_role",
    does: "evaluate the goal gate",
    area: "goals and attempts",
  },
  "attempt.start": { roles: RECORDERS, rule: "attempt.start_role", does: "start attempts", area: "goals and attempts" },
  "attempt.toolCalls": { roles: RECORDERS, rule: "attempt.tool_calls_role", does: "record tool calls", area: "goals and attempts" },
  "attempt.finish": { roles: RECORDERS, rule: "attempt.finish_role", does: "finish attempts", area: "goals and attempts" },
  "attempt.validationRun": { roles: RECORDERS, rule: "validation_run.record_role", does: "record validation runs", area: "goals and attempts" },
  "attempt.trustScore": { roles: JUDGES, rule: "trust_score.role", does: "record trust scores", area: "goals and attempts" },
  "tool.record": { roles: RECORDERS, rule: "tool.record_role", does: "record tools", area: "goals and attempts" },

  "runtime.hook": { roles: LOGGERS, rule: "runtime.hook_role", does: "report an agent runtime's hooks (sessions, tool calls, stops)", area: "telemetry" },
  "log.write": {
    roles: LOGGERS,
    rule: "log.write_role",
    does: "write logs, reasoning, tokens, state, context packages and what a project learned (error patterns, strategies)",
    area: "telemetry",
  },

  "account.tokens": { roles: PEOPLE, rule: "account.token_role", does: "list their own personal API tokens", area: "personal API tokens" },
  "account.createToken": {
    roles: PEOPLE,
    rule: "account.token_role",
    does: "create personal API tokens (acting with their own role)",
    area: "personal API tokens",
  },
  "account.revokeToken": { roles: PEOPLE, rule: "account.token_role", does: "revoke their own personal API tokens", area: "personal API tokens" },

  "admin.users": { roles: ADMIN, rule: "admin.user_role", does: "manage users", area: "administration", credentials: true },
  "admin.tokens": {
    roles: ADMIN,
    rule: "admin.token_role",
    does: "manage API tokens (agent tokens, and everyone's personal tokens: list and revoke)",
    area: "administration",
    credentials: true,
  },
  "admin.webhooks": {
    roles: ADMIN,
    rule: "admin.webhook_role",
    does: "manage webhook subscriptions (notifications) and read their delivery log",
    area: "administration",
    credentials: true,
  },
  "admin.config": { roles: ADMIN, rule: "admin.config_role", does: "read the configuration tables", area: "administration" },
  "import.workflowConfig": { roles: ADMIN, rule: "config.import_role", does: "import workflow configuration", area: "administration" },
  purge: { roles: ADMIN, rule: "purge.role", does: "purge sessions", area: "administration" },
} as const satisfies Record<string, Permission>;

export type Action = keyof typeof PERMISSIONS;
export const ACTIONS = Object.keys(PERMISSIONS) as Action[];

export function permissionOf(action: Action): Permission {
  return PERMISSIONS[action];
}

/** Whether a role may take an action at all (data-dependent rules are checked where the data is). */
export function may(role: Role, action: Action): boolean {
  return (PERMISSIONS[action].roles as readonly Role[]).includes(role);
}

/** Refuse, naming the rule, unless the actor's role may take the action. */
export function authorize(actor: Pick<Actor, "role">, action: Action, does: string = PERMISSIONS[action].does): void {
  const permission = PERMISSIONS[action];
  if (!may(actor.role, action)) {
    throw new RoleForbiddenError(permission.rule, `role ${actor.role} may not ${does} (allowed: ${permission.roles.join(", ")})`);
  }
}

/**
 * Refuse a write to an action that makes credentials (`credentials` in the table) when the request
 * came through a person's API token: an admin's script could otherwise mint an agent token or a
 * user that outlives the token's expiry and revocation. An agent token with the admin role is not
 * a personal token (no `actor.token`) and keeps what its role allows. Call after `authorize`.
 */
export function authorizeCredentialWrite(actor: Pick<Actor, "token">, action: Action, does: string = PERMISSIONS[action].does): void {
  const permission: Permission = PERMISSIONS[action];
  if (permission.credentials && actor.token) {
    throw new RoleForbiddenError(
      CREDENTIALS_FROM_TOKEN_RULE,
      `a personal API token may not ${does} (this call came through ${actor.token.name}): sign in to the dashboard to do it`,
    );
  }
}

/** Every action a role may take, in table order. */
export function actionsOf(role: Role): Action[] {
  return ACTIONS.filter((action) => may(role, action));
}

/** One line for the settings page: the areas a role acts in, each "all" or the actions it may take. */
export function roleSummary(role: Role): string {
  const areas = PERMISSION_AREAS.filter((area) => area !== "read")
    .map((area) => {
      const inArea = ACTIONS.filter((action) => PERMISSIONS[action].area === area);
      const allowed = inArea.filter((action) => may(role, action));
      if (allowed.length === 0) return null;
      return allowed.length === inArea.length ? `${area}: all` : `${area}: ${allowed.map((action) => shortDoes(PERMISSIONS[action].does)).join(", ")}`;
    })
    .filter((line): line is string => line !== null);
  return areas.length === 0 ? "reads everything, changes nothing" : `reads everything; ${areas.join("; ")}`;
}

function shortDoes(does: string): string {
  return does.replace(/ \(.*\)$/, "");
}

/** The table as Markdown, one row per action with a column per role: what the README prints. */
export function permissionsMarkdown(): string {
  const header = `| action | what it does | ${ROLES.join(" | ")} | refused as |`;
  const rule = `|---|---|${ROLES.map(() => ":-:").join("|")}|---|`;
  const rows = ACTIONS.map((action) => {
    const p = PERMISSIONS[action];
    return `| \`${action}\` | ${shortDoes(p.does)} | ${ROLES.map((role) => (may(role, action) ? "✓" : "")).join(" | ")} | \`${p.rule}\` |`;
  });
  return [header, rule, ...rows].join("\n");
}
