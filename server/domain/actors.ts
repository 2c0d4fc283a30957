/**
 * Who is acting. A principal is the authenticated identity (a signed-in user, an API token, or the
 * machine's operator in local CLI mode); the label is the agent name it reports (e.g. `developer_1`).
 */
export const ROLES = ["viewer", "agent", "verifier", "orchestrator", "lead", "admin"] as const;
export type Role = (typeof ROLES)[number];

export type PrincipalKind = "user" | "token" | "operator";

export interface Actor {
  /** Stable id of the principal (`user:<id>`, `token:<id>`, or `operator` for local mode). */
  principalId: string;
  principalKind: PrincipalKind;
  role: Role;
  /** The agent label it acts as, e.g. `developer_1`; for humans, their email or name. */
  label: string;
  /**
   * The personal API token a person is acting through (a script of theirs), if any: the principal
   * is still the person (`user:<id>`, with their current role), and events note the token.
   */
  token?: { id: number; name: string };
}

/** What `events.via` records for an actor: `token:<id> <name>` when a person acts through a personal token. */
export function viaOf(actor: Actor): string | null {
  return actor.token ? `token:${actor.token.id} ${actor.token.name}` : null;
}

/** The roles a person who signs in can hold; API tokens may also be agents, verifiers and orchestrators. */
export const USER_ROLES = ["viewer", "lead", "admin"] as const satisfies readonly Role[];
export type UserRole = (typeof USER_ROLES)[number];

/**
 * The principal id stored on a row for "never the claimant" comparisons. The local operator is one
 * shared identity for every agent on a machine, so only the agent label distinguishes them: it is
 * stored as null and only labels are compared.
 */
export function comparablePrincipal(actor: Actor): string | null {
  return actor.principalKind === "operator" ? null : actor.principalId;
}

/**
 * What an agent label sent with a token may be: it lands in events, as a task's claimant, and in an
 * HTTP header. Never an email: people's actions carry their email, so a token holder with `@` in its
 * label could write history in a person's name (the local operator, who owns the machine, may).
 */
export const AGENT_LABEL = /^[\w.:+-]{1,200}$/;
export const AGENT_LABEL_RULE = "must be 1–200 letters, digits or . _ : + - (no @: an email names a person, and an agent never acts as one)";

/** The local-mode operator: admin rights, acting under the label it was given. */
export function operatorActor(label = "operator"): Actor {
  return { principalId: "operator", principalKind: "operator", role: "admin", label };
}
