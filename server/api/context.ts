import { TRPCError } from "@trpc/server";
import type { Db } from "@/db/client";
import { AGENT_LABEL, AGENT_LABEL_RULE, type Actor } from "@/server/domain/actors";
import { authenticateToken } from "@/server/services/admin/tokens";
import type { Auth } from "@/server/auth/auth";
import type { ApiContext } from "./trpc";
import { RUNTIME_SESSION_HEADER, type RuntimeSessionRef, parseRuntimeSessionRef } from "@/server/services/runtime/schemas";
import { ValidationError } from "@/server/domain/errors";

/** The header a remote CLI or agent uses to say which agent label it acts as (`--agent-id`). */
export const AGENT_HEADER = "x-proofgate-agent";

/**
 * Who is calling: an API token (`Authorization: Bearer pg_…`), else a signed-in person's cookie
 * session. A bearer header that does not authenticate never falls back to cookies.
 */
export async function createRequestContext(req: Request, db: Db, auth: Auth): Promise<ApiContext> {
  const byToken = await createTokenContext(req, db);
  if (byToken) return byToken;
  const session = await auth.api.getSession({ headers: req.headers });
  if (!session) return { db, actor: null, via: "none", sameOrigin: isSameOrigin(req) };
  const role = (session.user as { role?: string }).role;
  const actor: Actor = {
    principalId: `user:${session.user.id}`,
    principalKind: "user",
    role: role === "admin" || role === "lead" ? role : "viewer",
    label: session.user.email,
  };
  return { db, actor, via: "cookie", sameOrigin: isSameOrigin(req) };
}

/**
 * The API token's context, or null when the request sends no bearer token (the MCP endpoint
 * accepts tokens only). An unknown, revoked or expired token keeps `via: "token"` with no actor:
 * the refusal says so (auth.token).
 */
export async function createTokenContext(req: Request, db: Db): Promise<ApiContext | null> {
  const authorization = req.headers.get("authorization");
  if (!authorization?.toLowerCase().startsWith("bearer ")) return null;
  const label = agentLabel(req);
  const actor = await authenticateToken(db, authorization.slice(7).trim(), label);
  if (actor?.token && label !== undefined) {
    // A person's token acts as the person: another label would put a name that is not theirs in the history.
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: `${AGENT_HEADER}: a personal API token acts as its owner (${actor.label}); agent labels go with agent tokens`,
    });
  }
  const runtimeSession = runtimeSessionOf(req);
  // An unknown, revoked or expired token keeps `via: "token"`: the refusal says so (auth.token).
  return { db, actor, via: "token", sameOrigin: true, ...(runtimeSession ? { runtimeSession } : {}) };
}

/** The agent label a token-holder reports; it lands in events and as a task's claimant, so it is checked. */
function agentLabel(req: Request): string | undefined {
  const label = req.headers.get(AGENT_HEADER)?.trim();
  if (label === undefined || label === "") return undefined;
  if (!AGENT_LABEL.test(label)) {
    throw new TRPCError({ code: "BAD_REQUEST", message: `${AGENT_HEADER}: ${AGENT_LABEL_RULE}` });
  }
  return label;
}

/** The runtime session a token-holder's command runs in (a remote CLI inside Claude Code sends it): checked, since it names a row. */
export function runtimeSessionOf(req: Request): RuntimeSessionRef | undefined {
  try {
    return parseRuntimeSessionRef(req.headers.get(RUNTIME_SESSION_HEADER), RUNTIME_SESSION_HEADER);
  } catch (error) {
    if (error instanceof ValidationError) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
    throw error;
  }
}

/**
 * A cookie-authenticated write must come from this site's own pages. Browsers send `Origin` on
 * cross-origin requests (and on same-origin POSTs) and `Sec-Fetch-Site`; either one that points
 * elsewhere marks the request as cross-site.
 */
export function isSameOrigin(req: Request): boolean {
  const origin = req.headers.get("origin");
  if (origin) {
    const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
    const trusted = process.env.PROOFGATE_TRUSTED_ORIGINS?.split(",").map((o) => o.trim()) ?? [];
    try {
      return new URL(origin).host === host || trusted.includes(origin);
    } catch {
      return false;
    }
  }
  const site = req.headers.get("sec-fetch-site");
  return site === null || site === "same-origin" || site === "none";
}
