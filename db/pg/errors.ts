import { ConflictError, DomainError, ForbiddenTransitionError, NotFoundError, ValidationError } from "@/server/domain/errors";

/** What PostgreSQL said: the SQLSTATE and the fields node-postgres parses from the error response. */
export interface PgErrorFields {
  code: string;
  message: string;
  detail?: string;
  table?: string;
  column?: string;
  constraint?: string;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * The PostgreSQL error under `error`: node-postgres's DatabaseError itself, or the `cause` of the
 * DrizzleQueryError that Drizzle wraps it in (followed a few levels down). Undefined for anything
 * else (a connection refused has an errno code such as ECONNREFUSED, not a SQLSTATE).
 */
export function pgErrorOf(error: unknown): PgErrorFields | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === "object"; depth++) {
    const { code, severity } = current as { code?: unknown; severity?: unknown };
    // `severity` tells a server's error response from a socket error whose errno code is also five letters (EPIPE).
    if (typeof code === "string" && SQLSTATE.test(code) && typeof severity === "string" && current instanceof Error) return current as Error & PgErrorFields;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The SQLSTATE under `error`, if PostgreSQL raised it. */
export function sqlStateOf(error: unknown): string | undefined {
  return pgErrorOf(error)?.code;
}

/**
 * The database could not do it now, through nobody's fault in the request: a lock wait longer
 * than the lock timeout (55P03), a statement cancelled by its timeout (57014), or a serialization
 * failure or deadlock that persisted through every retry (40001, 40P01). PostgreSQL's counterpart of
 * SQLITE_BUSY; the caller may try again. `code` is stable for the CLI's and the API's mapping.
 */
export class DatabaseBusyError extends Error {
  readonly code = "DATABASE_BUSY";
  constructor(
    /** PostgreSQL's SQLSTATE. */
    readonly sqlState: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`database busy: ${message}`, options);
    this.name = "DatabaseBusyError";
  }
}

const BUSY = new Set(["55P03", "57014", "40001", "40P01"]);

/**
 * Translate what PostgreSQL refused into the domain's errors, as server/services/sqlite-errors.ts
 * does for SQLite and with the same rules and fields, so a refusal reads the same on either engine:
 * - P0001 (a trigger's `RAISE EXCEPTION 'task.rule: …'`) → ForbiddenTransitionError named by the rule the message starts with;
 * - 23505 unique → ConflictError `database.unique`, "already exists: table.column, …";
 * - 23503 foreign key → NotFoundError of the referenced row;
 * - 23514 check → ValidationError on the constraint's name; 23502 not null → on `table.column`;
 * - 55P03, 57014 (and 40001/40P01 once retries are spent) → DatabaseBusyError.
 * Anything else (and every DomainError) passes through unchanged.
 */
export function toDomainError(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  const pg = pgErrorOf(error);
  if (!pg) return error;
  switch (pg.code) {
    case "P0001": {
      const match = /^([a-z_]+(?:\.[a-z_]+)?):/.exec(pg.message);
      return new ForbiddenTransitionError(match?.[1] ?? "database.rule", pg.message);
    }
    case "23505":
      return new ConflictError("database.unique", `already exists: ${uniqueColumns(pg)}`);
    case "23503":
      return new NotFoundError("referenced row", "a referenced session, task, goal or attempt");
    case "23514":
      return new ValidationError(pg.constraint ?? "value", "database.constraint", pg.message);
    case "23502":
      return new ValidationError(pg.table && pg.column ? `${pg.table}.${pg.column}` : (pg.column ?? "value"), "database.constraint", pg.message);
    default:
      return BUSY.has(pg.code) ? new DatabaseBusyError(pg.code, pg.message, { cause: error }) : error;
  }
}

/**
 * "tasks.session_id, tasks.key", as SQLite words a unique violation, from PostgreSQL's detail
 * `Key (session_id, key)=(…) already exists.`; the constraint's name when the detail is missing
 * or is an expression index's.
 */
function uniqueColumns(pg: PgErrorFields): string {
  const columns = /^Key \(([^()]*)\)=/.exec(pg.detail ?? "")?.[1];
  if (columns && pg.table) {
    return columns
      .split(",")
      .map((column) => `${pg.table}.${column.trim().replace(/^"(.*)"$/, "$1")}`)
      .join(", ");
  }
  return pg.constraint ?? pg.message;
}
