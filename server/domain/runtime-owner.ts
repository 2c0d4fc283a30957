/**
 * Who a runtime session (a Claude Code session, say) belongs to (issue 30, item 5): the principal
 * that first reported it. Its id is no secret (it is in `runtime.session_started` events), so
 * without an owner any token could link its own ledger session to another agent's runtime session
 * — and the criteria it wrote there would become the text that agent is fed as the reason its stop
 * is held — or send that agent's hooks. Only the owner links sessions to it and sends its hooks.
 */
import type { Actor } from "./actors";
import type { CompletionInput } from "./completion-gate";
import { RoleForbiddenError } from "./errors";

export const RUNTIME_OWNER_RULE = "runtime.session_owner";

/**
 * Refuse a principal other than the runtime session's owner. A session with no owner yet (one
 * recorded before owners were kept) is the caller's to adopt: the caller stores it as the owner.
 * @throws RoleForbiddenError (`runtime.session_owner`) naming the runtime session.
 */
export function authorizeRuntimeSession(actor: Actor, session: { externalId: string; ownerPrincipal: string | null }): void {
  if (session.ownerPrincipal === null || session.ownerPrincipal === actor.principalId) return;
  throw new RoleForbiddenError(
    RUNTIME_OWNER_RULE,
    `runtime session ${JSON.stringify(session.externalId)} belongs to the principal that started it: only it may link ledger sessions to it or send its hooks`,
  );
}

/** Whose words may be put in the reason fed to the runtime session's agent: its owner's alone. */
export function isOwnersText(ownerPrincipal: string | null, writtenBy: string | null): boolean {
  return ownerPrincipal !== null && writtenBy === ownerPrincipal;
}

/** Who wrote a piece of text the completion gate quotes: the row's id, and the principal and label that wrote it (null: not recorded). */
export interface Author {
  id: number;
  principalId: string | null;
  label: string | null;
}

/** The writers of the gate's quoted texts in one session: criteria by their text, tasks by key, goals by id. */
export interface GateAuthors {
  criteria: ReadonlyMap<string, Author>;
  tasks: ReadonlyMap<string, Author>;
  goals: ReadonlyMap<number, Author>;
}

/** `criterion #12, written by orchestrator_1`: how a text the agent's owner did not write is named instead of quoted. */
export function namedInstead(what: "criterion" | "task" | "goal", author: Author | undefined): string {
  const verb = what === "criterion" ? "written" : "created";
  if (!author) return `a ${what} whose writer is not recorded`;
  return `${what} #${author.id}, ${verb} by ${author.label ?? "a writer not recorded"}`;
}

/**
 * The gate's input with every criterion text, task key and goal text that the runtime session's
 * owner did not write replaced by its id and writer (`namedInstead`): the verdict is the same, but
 * the reason fed to the agent whose stop is held quotes only its owner's words — another
 * principal's text would be instructions planted in that agent's prompt.
 */
export function ownersWordsOnly<T extends CompletionInput>(input: T, authors: GateAuthors, ownerPrincipal: string | null): T {
  const own = (author: Author | undefined) => isOwnersText(ownerPrincipal, author?.principalId ?? null);
  return {
    ...input,
    criteria: input.criteria.map((c) => {
      const author = authors.criteria.get(c.criterion);
      return own(author) ? c : { ...c, criterion: namedInstead("criterion", author) };
    }),
    tasks: input.tasks.map((t) => {
      const author = authors.tasks.get(t.key);
      return own(author) ? t : { ...t, key: namedInstead("task", author), title: "" };
    }),
    contractGoals: input.contractGoals.map((g) => {
      const author = authors.goals.get(g.id);
      return own(author) ? g : { ...g, goalText: namedInstead("goal", author) };
    }),
  };
}
