import { insertReturning } from "@/db/prepared";
import { randomUUID } from "node:crypto";
import { sessions } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ConflictError, ValidationError } from "@/server/domain/errors";
import { runtimeSessionOfSpec } from "@/server/domain/runtime-session";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import type { SessionRow } from "./load";
import { CreateSessionInput } from "./schemas";
import { parseInput } from "../parse-input";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";
import { linkToRuntimeSession } from "../runtime/link";

/**
 * Start a session. Its enforcement policy is fixed here (or by the server-wide default); only a lead changes it later.
 * With `input.runtimeSession` (named explicitly) or `ctx.runtimeSession` (the call comes from inside
 * one) it is linked to that runtime session (created if never seen) in the same transaction; the
 * two naming different runtime sessions is refused.
 */
export async function createSession(ctx: ServiceContext, unredacted: CreateSessionInput): Promise<SessionRow> {
  authorize(ctx.actor, "session.create");
  const { runtimeSession: spec, ...input } = redactInput(parseInput(CreateSessionInput, unredacted, "session.invalid_input"));
  const named = spec === undefined ? undefined : runtimeSessionOfSpec(spec);
  if (named && ctx.runtimeSession && (named.runtime !== ctx.runtimeSession.runtime || named.externalId !== ctx.runtimeSession.externalId))
    throw new ValidationError(
      "runtimeSession",
      "runtime.conflicting_session",
      `names ${spec}, but the call comes from inside runtime session ${ctx.runtimeSession.runtime}:${ctx.runtimeSession.externalId}`,
    );
  const runtimeSession = named ?? ctx.runtimeSession;
  return write(ctx, async (tx) => {
    const now = nowOf(ctx);
    const id = input.id ?? `pg_${now.toISOString().slice(0, 19).replace(/[-:T]/g, "")}_${randomUUID().slice(0, 8)}`;
    const enforcement = input.enforcement ?? ctx.defaultEnforcement ?? "enforce";
    const session = await insertReturning(
      ctx.db,
      "session.create",
      sessions,
      { ...input, id, source: input.source ?? "api", enforcement, status: "active", startedAt: now, createdAt: now, updatedAt: now },
      { onConflictDoNothing: true },
    );
    if (!session) throw new ConflictError("session.exists", `session ${id} already exists`);
    // Created inside a runtime session (a Claude Code session's commands): its stops now answer to this session's gate.
    const runtime = runtimeSession
      ? { runtime: runtimeSession.runtime, runtimeSessionId: (await linkToRuntimeSession(tx, ctx.actor, runtimeSession, id, now)).externalId }
      : undefined;
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.sessionCreated,
      sessionId: id,
      entity: "session",
      entityId: id,
      data: { enforcement, source: session.source, ...(runtime ? { runtime } : {}) },
    });
    return session;
  });
}
