import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import type { Db } from "@/db/client";
import type { Actor } from "@/server/domain/actors";
import { DomainError, RoleForbiddenError } from "@/server/domain/errors";
import { type Action, PERMISSIONS, authorizeCredentialWrite, may } from "@/server/domain/permissions";
import type { ServiceContext } from "@/server/services/context";
import type { RuntimeSessionRef } from "@/server/services/runtime/schemas";
import { errorDetails, toTRPCError, zodMessage } from "./errors";
import { hostileInputError } from "@/server/domain/input-guard";

export interface ApiContext {
  db: Db;
  /** Who is calling; null when the request carried no valid credentials. */
  actor: Actor | null;
  /**
   * How the caller authenticated: cookies need a same-origin check on writes, bearer tokens do not.
   * `token` with no actor: a bearer token was sent but is unknown, revoked or expired.
   */
  via: "token" | "cookie" | "internal" | "none";
  /** The request came from this site's own pages (Origin matches Host), or was not a browser request. */
  sameOrigin: boolean;
  /** The agent runtime session the call was made in (see ServiceContext.runtimeSession). */
  runtimeSession?: RuntimeSessionRef;
}

const t = initTRPC.context<ApiContext>().create({
  transformer: superjson,
  // A silently dead connection (a proxy that drops it, a laptop that slept) is noticed: the server
  // pings every 10 s and a client that hears nothing for 25 s reconnects from its last event id.
  sse: { ping: { enabled: true, intervalMs: 10_000 }, client: { reconnectAfterInactivityMs: 25_000 } },
  errorFormatter({ shape, error }) {
    const details = errorDetails(error.cause);
    const message =
      error.cause instanceof ZodError
        ? zodMessage(error.cause)
        : error.cause instanceof SyntaxError
          ? `request body: must be valid JSON (${error.cause.message})`
          : shape.message;
    return { ...shape, message, data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path, ...details } };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure's service errors pass through the one mapping. tRPC's own refusals (input
 * validation → BAD_REQUEST, auth) already carry their code and pass through unchanged; anything a
 * procedure threw arrives wrapped as INTERNAL_SERVER_ERROR and is mapped from its cause.
 */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  if (result.error.code !== "INTERNAL_SERVER_ERROR") throw result.error;
  throw toTRPCError(result.error.cause ?? result.error);
});

/**
 * Before any schema: refuse what no field may hold (too deep, NUL, lone surrogates, non-JSON
 * values), naming the field. Every procedure, the CLI's local mode included, passes through here.
 */
const guardInput = t.middleware(async ({ next, getRawInput }) => {
  const problem = hostileInputError(await getRawInput());
  if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: problem.message, cause: problem });
  return next();
});

export const publicProcedure = t.procedure.use(mapErrors).use(guardInput);

/** No usable credentials (HTTP 401); the rule travels in the error's data like any other refusal. */
class AuthenticationError extends DomainError {
  readonly kind = "forbidden" as const;
}

/** The refusal of a caller without usable credentials, naming the rule: the same words on /api/trpc and /api/mcp. */
export function unauthenticated(via: ApiContext["via"]): TRPCError {
  const cause =
    via === "token"
      ? new AuthenticationError("auth.token", "auth.token: the API token is unknown, revoked or expired")
      : new AuthenticationError("auth.required", "auth.required: sign in or send an API token (Authorization: Bearer …)");
  return new TRPCError({ code: "UNAUTHORIZED", message: cause.message, cause });
}

/** A signed-in person or a valid token: at least viewer. Narrows `ctx.actor` and hands services their context. */
export const authedProcedure = publicProcedure.use(({ ctx, next, type }) => {
  if (!ctx.actor) throw unauthenticated(ctx.via);
  if (type !== "query" && ctx.via === "cookie" && !ctx.sameOrigin) {
    throw new TRPCError({ code: "FORBIDDEN", message: "csrf: state-changing requests from another site are refused" });
  }
  const service: ServiceContext = { db: ctx.db, actor: ctx.actor, ...(ctx.runtimeSession ? { runtimeSession: ctx.runtimeSession } : {}) };
  return next({ ctx: { ...ctx, actor: ctx.actor, service } });
});

/**
 * Only the roles the permission table gives `action` reach the procedure, refused with its rule
 * (data-dependent rules such as "never the claimant" stay in the domain); a mutation of an action
 * that makes credentials is refused to a personal API token (authorizeCredentialWrite).
 */
export function actionProcedure(action: Action) {
  const { roles, rule } = PERMISSIONS[action];
  return authedProcedure.use(({ ctx, next, path, type }) => {
    if (!may(ctx.actor.role, action)) {
      const message = `role ${ctx.actor.role} may not call ${path} (allowed: ${roles.join(", ")})`;
      throw new TRPCError({ code: "FORBIDDEN", message, cause: new RoleForbiddenError(rule, message) });
    }
    if (type === "mutation") {
      try {
        authorizeCredentialWrite(ctx.actor, action, `call ${path}`);
      } catch (error) {
        throw toTRPCError(error);
      }
    }
    return next();
  });
}
