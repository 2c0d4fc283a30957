// flake-risks wait: the statement a 50 ms statement_timeout cancels: it is meant never to finish
import Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ConflictError, type DomainError, ForbiddenTransitionError, NotFoundError, ValidationError } from "@/server/domain/errors";
import { toDomainError as fromSqlite } from "@/server/services/sqlite-errors";
import { createTestDatabase } from "@/test/support/pg-cluster";
import { closePgDatabase, openPgDatabase, type PgDb } from "./client";
import { DatabaseBusyError, pgErrorOf, toDomainError } from "./errors";
import { pgWriteTransaction } from "./write";

const adminUrl = inject("pgAdminUrl");

/** The same tables and refusing trigger on both engines, so each refusal can be compared with SQLite's. */
const PG_SCHEMA = `
CREATE TABLE parent (id integer PRIMARY KEY);
CREATE TABLE child (
  id integer PRIMARY KEY,
  parent_id integer NOT NULL REFERENCES parent (id),
  name text NOT NULL,
  qty integer NOT NULL CONSTRAINT child_qty_positive CHECK (qty > 0),
  state text NOT NULL DEFAULT 'pending',
  UNIQUE (parent_id, name)
);
CREATE FUNCTION child_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.state = 'done' AND NEW.state <> 'done' THEN
    RAISE EXCEPTION 'task.forbidden_transition: a done child stays done (was %, asked %)', OLD.state, NEW.state;
  END IF;
  IF NEW.state = 'nameless' THEN
    RAISE EXCEPTION 'refused without naming a rule';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER child_refuse BEFORE UPDATE ON child FOR EACH ROW EXECUTE FUNCTION child_refuse();
INSERT INTO parent VALUES (1);
INSERT INTO child (id, parent_id, name, qty, state) VALUES (1, 1, 'first', 1, 'done'), (2, 1, 'second', 1, 'pending');
`;
const SQLITE_SCHEMA = `
CREATE TABLE parent (id integer PRIMARY KEY);
CREATE TABLE child (
  id integer PRIMARY KEY,
  parent_id integer NOT NULL REFERENCES parent (id),
  name text NOT NULL,
  qty integer NOT NULL CONSTRAINT child_qty_positive CHECK (qty > 0),
  state text NOT NULL DEFAULT 'pending',
  UNIQUE (parent_id, name)
);
CREATE TRIGGER child_refuse BEFORE UPDATE ON child FOR EACH ROW WHEN OLD.state = 'done' AND NEW.state <> 'done'
BEGIN SELECT RAISE(ABORT, 'task.forbidden_transition: a done child stays done'); END;
INSERT INTO parent VALUES (1);
INSERT INTO child (id, parent_id, name, qty, state) VALUES (1, 1, 'first', 1, 'done'), (2, 1, 'second', 1, 'pending');
`;

/** What each engine refuses, as the same statement. */
const CASES = {
  trigger: "UPDATE child SET state = 'pending' WHERE id = 1",
  unique: "INSERT INTO child (id, parent_id, name, qty) VALUES (3, 1, 'first', 1)",
  foreignKey: "INSERT INTO child (id, parent_id, name, qty) VALUES (3, 99, 'orphan', 1)",
  check: "INSERT INTO child (id, parent_id, name, qty) VALUES (3, 1, 'none', 0)",
  notNull: "INSERT INTO child (id, parent_id, name, qty) VALUES (3, 1, NULL, 1)",
} as const;

describe.skipIf(!adminUrl)("toDomainError (PostgreSQL)", () => {
  let db: PgDb;
  let other: PgDb;
  const sqlite = new Database(":memory:");
  sqlite.pragma("foreign_keys = ON");
  sqlite.exec(SQLITE_SCHEMA);

  beforeAll(async () => {
    const url = await createTestDatabase(adminUrl!);
    db = await openPgDatabase(url, { migrate: false, max: 2 });
    other = await openPgDatabase(url, { migrate: false, max: 2, lockTimeoutMs: 100 });
    await db.$client.query(PG_SCHEMA);
  });
  afterAll(async () => {
    sqlite.close();
    await Promise.all([db, other].filter(Boolean).map(closePgDatabase));
  });

  /** Run a statement through Drizzle (so the error arrives wrapped in DrizzleQueryError, as in the services) and return what it threw. */
  const refusal = async (statement: string) => {
    const error = await db.execute(sql.raw(statement)).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!error) throw new Error(`expected PostgreSQL to refuse: ${statement}`);
    return error;
  };
  const sqliteRefusal = (statement: string) => {
    try {
      sqlite.exec(statement);
    } catch (error) {
      return fromSqlite(error);
    }
    throw new Error(`expected SQLite to refuse: ${statement}`);
  };
  /** What callers rely on: the class, the rule, the field (validation). */
  const shape = (error: unknown) => ({
    class: (error as Error).constructor.name,
    rule: (error as DomainError).rule,
    field: error instanceof ValidationError ? error.field : undefined,
  });

  it("P0001 from a trigger's RAISE EXCEPTION → ForbiddenTransitionError named by the rule the message starts with", async () => {
    const raw = await refusal(CASES.trigger);
    expect(pgErrorOf(raw)?.code).toBe("P0001");
    const error = toDomainError(raw);
    expect(error).toBeInstanceOf(ForbiddenTransitionError);
    expect(error).toMatchObject({ rule: "task.forbidden_transition", message: "task.forbidden_transition: a done child stays done (was done, asked pending)" });
    expect(shape(error)).toEqual(shape(sqliteRefusal(CASES.trigger)));
  });

  it("P0001 whose message names no rule → ForbiddenTransitionError database.rule", async () => {
    const error = toDomainError(await refusal("UPDATE child SET state = 'nameless' WHERE id = 2"));
    expect(error).toBeInstanceOf(ForbiddenTransitionError);
    expect(error).toMatchObject({ rule: "database.rule", message: "refused without naming a rule" });
  });

  it("23505 duplicate key → ConflictError database.unique naming the columns as SQLite does", async () => {
    const raw = await refusal(CASES.unique);
    expect(pgErrorOf(raw)?.code).toBe("23505");
    const error = toDomainError(raw);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ rule: "database.unique", message: "already exists: child.parent_id, child.name" });
    expect((error as Error).message).toBe((sqliteRefusal(CASES.unique) as Error).message);
  });

  it("23503 missing foreign key → NotFoundError of the referenced row", async () => {
    const raw = await refusal(CASES.foreignKey);
    expect(pgErrorOf(raw)?.code).toBe("23503");
    const error = toDomainError(raw);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(shape(error)).toEqual(shape(sqliteRefusal(CASES.foreignKey)));
  });

  it("23514 CHECK → ValidationError on the constraint's name", async () => {
    const raw = await refusal(CASES.check);
    expect(pgErrorOf(raw)?.code).toBe("23514");
    const error = toDomainError(raw);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "child_qty_positive", rule: "database.constraint" });
    expect(shape(error)).toEqual(shape(sqliteRefusal(CASES.check)));
  });

  it("23502 NOT NULL → ValidationError on table.column", async () => {
    const raw = await refusal(CASES.notNull);
    expect(pgErrorOf(raw)?.code).toBe("23502");
    const error = toDomainError(raw);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "child.name", rule: "database.constraint" });
    expect(shape(error)).toEqual(shape(sqliteRefusal(CASES.notNull)));
  });

  it("55P03: a write that waits for the writer lock past the lock timeout → DatabaseBusyError", async () => {
    let inside!: () => void;
    const holding = new Promise<void>((resolve) => (inside = resolve));
    let letGo!: () => void;
    const released = new Promise<void>((resolve) => (letGo = resolve));
    // Held until the other write has given up: not for a fixed time the other might only reach after it.
    const holder = pgWriteTransaction(db, async () => {
      inside();
      await released;
    });
    await holding;
    const error = await pgWriteTransaction(other, async () => "never runs")
      .catch((e: unknown) => e)
      .finally(letGo);
    await holder;
    expect(pgErrorOf(error)?.code).toBe("55P03");
    expect(toDomainError(error)).toBeInstanceOf(DatabaseBusyError);
    expect(toDomainError(error)).toMatchObject({ code: "DATABASE_BUSY", sqlState: "55P03" });
  });

  it("57014: a statement cancelled by its timeout → DatabaseBusyError", async () => {
    const error = await db
      .transaction(async (tx) => {
        await tx.execute(sql`set local statement_timeout = 50`);
        await tx.execute(sql`select pg_sleep(2)`);
      })
      .catch((e: unknown) => e);
    expect(pgErrorOf(error)?.code).toBe("57014");
    expect(toDomainError(error)).toMatchObject({ code: "DATABASE_BUSY", sqlState: "57014" });
  });

  it("passes through domain errors, other PostgreSQL errors and errors that are not PostgreSQL's", async () => {
    const domain = new ConflictError("task.version_conflict", "changed");
    expect(toDomainError(domain)).toBe(domain);
    const syntax = await refusal("SELEC 1");
    expect(pgErrorOf(syntax)?.code).toBe("42601");
    expect(toDomainError(syntax)).toBe(syntax);
    // A socket error carries a five-letter errno code but is no SQLSTATE.
    const socket = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    expect(pgErrorOf(socket)).toBeUndefined();
    expect(toDomainError(socket)).toBe(socket);
    const plain = new Error("x");
    expect(toDomainError(plain)).toBe(plain);
  });
});
