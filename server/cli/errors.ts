import { CommanderError } from "commander";
import { ZodError } from "zod";
import { zodMessage } from "@/server/api/errors";
import { DatabaseMissingError, exitCodeOf, isTrpcError } from "./api";
import { DomainError, GateRejectedError } from "@/server/domain/errors";
import { toDomainError } from "@/server/services/sqlite-errors";

/** Exit codes that mean something to a calling script. */
export const EXIT = { ok: 0, refused: 1, badInput: 2, notFound: 3, unreachable: 4 } as const;

/** Thrown by commands for bad arguments that commander itself cannot see (names the argument). */
export class UsageError extends Error {}

/** The one place a CLI failure becomes a message on stderr and an exit code. */
export function handleError(error: unknown, json: boolean): number {
  const { code, payload } = describeError(toDomainError(error));
  if (json) process.stderr.write(`${JSON.stringify({ error: payload })}\n`);
  else {
    const hint = payload.rule ? HINTS[payload.rule] : undefined;
    const reasons = payload.reasons ? `\n${payload.reasons.map((r) => `  - ${r}`).join("\n")}` : "";
    process.stderr.write(`proofgate: ${payload.message}${reasons}${hint ? `\n  ${hint}` : ""}\n`);
  }
  return code;
}

/** What a person at a shell can do about a refusal that the server's message cannot know. */
const HINTS: Readonly<Record<string, string>> = {
  "auth.required": "remote mode needs an API token: --token pg_… or PROOFGATE_TOKEN (an operator makes one with proofgate token create)",
  "auth.token": "check --token / PROOFGATE_TOKEN; proofgate token list shows which tokens are revoked",
};

/** A failure as an exit code and what to tell the caller (the rule, the message, a gate's reasons); the MCP server words its tool errors from it too. */
export function describeError(error: unknown): { code: number; payload: { rule?: string; message: string; reasons?: readonly string[] } } {
  if (error instanceof GateRejectedError) return { code: EXIT.refused, payload: { rule: error.rule, message: error.message, reasons: error.reasons } };
  if (error instanceof DomainError) {
    const code = error.kind === "validation" ? EXIT.badInput : error.kind === "not_found" ? EXIT.notFound : EXIT.refused;
    return { code, payload: { rule: error.rule, message: error.message } };
  }
  if (isTrpcError(error)) {
    // A server's answer (TRPCClientError) carries the rule in its data; an in-process TRPCError in its cause.
    const remote = error.name === "TRPCClientError";
    const data = remote ? error.data : undefined;
    const cause = remote ? undefined : error.cause;
    const reasons = data?.reasons ?? (cause instanceof GateRejectedError ? cause.reasons : undefined);
    const rule = data?.rule ?? (cause instanceof DomainError ? cause.rule : undefined);
    const code = exitCodeOf(error) ?? EXIT.unreachable;
    const message = cause instanceof ZodError ? zodMessage(cause) : remote && !data ? `server unreachable: ${innermost(error)}` : error.message;
    return { code, payload: { rule, message, reasons } };
  }
  if (error instanceof DatabaseMissingError) return { code: EXIT.unreachable, payload: { message: error.message } };
  if (error instanceof UsageError) return { code: EXIT.badInput, payload: { message: error.message } };
  if (error instanceof CommanderError) return { code: EXIT.badInput, payload: { message: error.message.replace(/^error: /, "") } };
  const errorCode = (error as { code?: unknown } | null)?.code;
  if (typeof errorCode === "string" && /^E(NOENT|ACCES|PERM|ROFS|NOTDIR|EXIST|ISDIR)$/.test(errorCode)) {
    return { code: EXIT.unreachable, payload: { message: `database unavailable: ${(error as Error).message}` } };
  }
  if (typeof errorCode === "string" && /^SQLITE_(CANTOPEN|NOTADB|IOERR|BUSY|LOCKED|READONLY)/.test(errorCode)) {
    return { code: EXIT.unreachable, payload: { message: `database unavailable: ${(error as Error).message}` } };
  }
  // A PostgreSQL server that cannot be reached, refuses the login, or has no such database (SQLSTATE classes 08 and 28, 3D000, 57P03).
  if (typeof errorCode === "string" && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|EAI_AGAIN|08...|28...|3D000|57P03)$/.test(errorCode)) {
    return { code: EXIT.unreachable, payload: { message: `database unavailable: ${(error as Error).message}` } };
  }
  return { code: EXIT.unreachable, payload: { message: `unexpected failure: ${error instanceof Error ? error.message : String(error)}` } };
}

/** fetch says "fetch failed"; the cause under it says why ("connect ECONNREFUSED 127.0.0.1:3000"). */
function innermost(error: Error): string {
  let message = error.message;
  let cause = error.cause;
  for (let depth = 0; depth < 10 && cause !== null && typeof cause === "object"; depth++, cause = (cause as { cause?: unknown }).cause) {
    const text = (cause as { message?: unknown }).message;
    if (typeof text === "string" && text) message = text;
  }
  return message;
}
