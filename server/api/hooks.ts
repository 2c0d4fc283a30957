import { TRPCError } from "@trpc/server";
import type { Db } from "@/db/client";
import type { Auth } from "@/server/auth/auth";
import { DomainError, ValidationError } from "@/server/domain/errors";
import { handleClaudeCodeHook } from "@/server/services/runtime/hook";
import { claudeCodeOutput } from "@/server/services/runtime/claude-code-output";
import { toDomainError } from "@/server/services/sqlite-errors";
import { createRequestContext } from "./context";
import { MAX_BODY_BYTES, withBodyLimit } from "./handler";
import { unauthenticated } from "./trpc";

const STATUS = { validation: 400, forbidden: 403, not_found: 404, conflict: 409 } as const;

/**
 * `POST /api/hooks/claude-code`, for Claude Code's `http` hook type: the hook's JSON input as the
 * body, answered 200 with the JSON Claude Code reads from a hook (`{"decision":"block","reason":…}`
 * to hold a stop, `{}` to let it be). Authenticated like /api/trpc (a bearer token; 401
 * auth.required / auth.token), for the roles that write a session's history. A refusal is a
 * non-2xx status, which Claude Code treats as a non-blocking error: the agent goes on.
 * `?max_blocks=N` sets the cap of stops held in a row (default 3).
 */
export async function handleClaudeCodeHookRequest(req: Request, db: () => Db, auth: () => Auth): Promise<Response> {
  try {
    const ctx = await createRequestContext(req, db(), auth());
    if (!ctx.actor) throw unauthenticated(ctx.via);
    if (ctx.via === "cookie" && !ctx.sameOrigin)
      throw new TRPCError({ code: "FORBIDDEN", message: "csrf: state-changing requests from another site are refused" });
    const maxBlocks = maxBlocksOf(new URL(req.url).searchParams.get("max_blocks"));
    const text = await withBodyLimit(req, MAX_BODY_BYTES).text();
    let payload: unknown;
    try {
      payload = JSON.parse(text) as unknown;
    } catch (error) {
      throw new ValidationError("request body", "runtime.invalid_hook_input", `must be the hook's JSON input (${(error as Error).message})`);
    }
    const answer = await handleClaudeCodeHook({ db: ctx.db, actor: ctx.actor }, payload, { maxBlocks });
    return Response.json(claudeCodeOutput(answer) ?? {});
  } catch (error) {
    return refusal(error);
  }
}

function maxBlocksOf(value: string | null): number | undefined {
  if (value === null) return undefined;
  const n = Number(value);
  if (!/^\d{1,3}$/.test(value) || n < 1 || n > 100) throw new ValidationError("max_blocks", "runtime.invalid_max_blocks", "must be an integer from 1 to 100");
  return n;
}

function refusal(error: unknown): Response {
  if (error instanceof TRPCError) {
    const status =
      error.code === "UNAUTHORIZED"
        ? 401
        : error.code === "FORBIDDEN"
          ? 403
          : error.code === "PAYLOAD_TOO_LARGE"
            ? 413
            : error.code === "BAD_REQUEST"
              ? 400
              : 500;
    const rule = error.cause instanceof DomainError ? error.cause.rule : undefined;
    if (status === 500) console.error("proofgate: hook failed", error);
    return Response.json({ error: { ...(rule ? { rule } : {}), message: status === 500 ? "internal error" : error.message } }, { status });
  }
  const mapped = toDomainError(error);
  if (mapped instanceof DomainError) {
    return Response.json(
      { error: { rule: mapped.rule, message: mapped.message, ...(mapped instanceof ValidationError ? { field: mapped.field } : {}) } },
      { status: STATUS[mapped.kind] },
    );
  }
  console.error("proofgate: hook failed", error);
  return Response.json({ error: { message: "internal error" } }, { status: 500 });
}
