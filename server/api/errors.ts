import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { DomainError, GateRejectedError, ValidationError, fieldPath } from "@/server/domain/errors";
import { toDomainError } from "@/server/services/sqlite-errors";

const CODE = { validation: "BAD_REQUEST", forbidden: "FORBIDDEN", not_found: "NOT_FOUND", conflict: "CONFLICT" } as const;

/**
 * The one mapping from what a service threw to what an API caller sees: bad input → BAD_REQUEST
 * naming the field, a refused rule or role → FORBIDDEN naming the rule, unknown id → NOT_FOUND, a
 * concurrent move → CONFLICT. Anything else is logged here and reaches the caller only as a
 * generic internal error, never with its details.
 */
export function toTRPCError(error: unknown): TRPCError {
  if (error instanceof TRPCError) return error;
  const mapped = toDomainError(error);
  if (mapped instanceof DomainError) return new TRPCError({ code: CODE[mapped.kind], message: mapped.message, cause: mapped });
  console.error("proofgate: internal error", error);
  return new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "internal error" });
}

/** What an error's `data` carries besides tRPC's own fields: the rule, the field, the gate's reasons. */
export function errorDetails(cause: unknown): { rule?: string; field?: string; reasons?: readonly string[]; issues?: { path: string; message: string }[] } {
  if (cause instanceof ZodError) {
    return { rule: "input.invalid", issues: cause.issues.flatMap(issueParts) };
  }
  if (cause instanceof SyntaxError) return { rule: "input.malformed_json" };
  if (cause instanceof GateRejectedError) return { rule: cause.rule, reasons: cause.reasons };
  if (cause instanceof ValidationError) return { rule: cause.rule, field: cause.field };
  if (cause instanceof DomainError) return { rule: cause.rule };
  return {};
}

/** A readable message naming each bad field, instead of zod's JSON dump. */
export function zodMessage(error: ZodError): string {
  return error.issues
    .flatMap(issueParts)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
}

/** An issue as field + message; an unknown key is named as the field itself ("extra: is not a known field"). */
function issueParts(issue: ZodError["issues"][number]): { path: string; message: string }[] {
  if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ path: fieldPath([...issue.path, key]), message: "is not a known field" }));
  return [{ path: fieldPath(issue.path), message: issue.message }];
}
