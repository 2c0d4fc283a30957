import { ConflictError, DomainError, ForbiddenTransitionError, NotFoundError, ValidationError } from "@/server/domain/errors";

interface SqliteError {
  code: string;
  message: string;
}

function isSqliteError(error: unknown): error is SqliteError {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("SQLITE_");
}

/**
 * Translate what SQLite refused into the domain's errors. Triggers name their rule first
 * (`task.forbidden_transition: …`), so a rule the domain did not catch still reaches the caller
 * as a named refusal rather than an internal error. Anything else passes through unchanged.
 */
export function toDomainError(error: unknown): unknown {
  if (error instanceof DomainError || !isSqliteError(error)) return error;
  if (error.code === "SQLITE_CONSTRAINT_TRIGGER") {
    const match = /^([a-z_]+(?:\.[a-z_]+)?):/.exec(error.message);
    return new ForbiddenTransitionError(match?.[1] ?? "database.rule", error.message);
  }
  if (error.code === "SQLITE_CONSTRAINT_UNIQUE" || error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    return new ConflictError("database.unique", `already exists: ${error.message.replace(/^UNIQUE constraint failed: /, "")}`);
  }
  if (error.code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
    return new NotFoundError("referenced row", "a referenced session, task, goal or attempt");
  }
  if (error.code === "SQLITE_CONSTRAINT_CHECK" || error.code === "SQLITE_CONSTRAINT_NOTNULL") {
    const column = /(?:CHECK constraint failed|NOT NULL constraint failed): (\S+)/.exec(error.message)?.[1] ?? "value";
    return new ValidationError(column, "database.constraint", error.message);
  }
  return error;
}
