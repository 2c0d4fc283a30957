/**
 * Personal API tokens: a person's own tokens, acting with the person's role as it is at each
 * request. Who may hold and make them is decided here; the role check is the permission table's
 * (`account.*`).
 */
import type { Actor } from "./actors";
import { RoleForbiddenError, ValidationError } from "./errors";

/** Active (neither revoked nor expired) personal tokens one person may hold at once. */
export const MAX_ACTIVE_PERSONAL_TOKENS = 50;

/**
 * The user id a personal token belongs to: the signed-in person's, or the person a personal token
 * acts for. An agent token (even one with a person's role, such as an admin token) and the local
 * operator are nobody's, so they have no personal tokens.
 */
export function tokenOwnerOf(actor: Actor): string {
  if (actor.principalKind !== "user" || !actor.principalId.startsWith("user:")) {
    throw new RoleForbiddenError(
      "account.person_required",
      `personal API tokens belong to a person who signs in; ${actor.label} acts through ${actor.principalKind === "operator" ? "the local command line" : "an agent token"}`,
    );
  }
  return actor.principalId.slice("user:".length);
}

/**
 * Only a signed-in person creates a personal token: a token that could mint tokens would let
 * whoever holds one (a leaked script's, say) outlive its expiry and its revocation.
 */
export function assertMayCreatePersonalToken(actor: Actor, activeTokens: number): string {
  const owner = tokenOwnerOf(actor);
  if (actor.token) {
    throw new RoleForbiddenError(
      "account.token_from_token",
      `a personal API token cannot create tokens (this call came through ${actor.token.name}): sign in to the dashboard to create one`,
    );
  }
  if (activeTokens >= MAX_ACTIVE_PERSONAL_TOKENS) {
    throw new ValidationError(
      "name",
      "account.token_limit",
      `you already have ${activeTokens} active personal tokens (at most ${MAX_ACTIVE_PERSONAL_TOKENS}): revoke one you no longer use`,
    );
  }
  return owner;
}
