/**
 * Shared set-up for the API integration tests: a fresh migrated in-memory database, callers for
 * actors of every role, and helpers that read refusals the way an HTTP client would see them.
 */
import { TRPCError, getErrorShape } from "@trpc/server";
import { expect, vi } from "vitest";
import { type Db, createMemoryDb } from "@/db/client";
import type { Actor, Role } from "@/server/domain/actors";
import type { Proofpack } from "@/server/domain/task-machine";
import { type ApiContext } from "@/server/api/trpc";
import { appRouter, createCaller } from "@/server/api/root";
import { tableCountsOf } from "./rows";

export type Caller = ReturnType<typeof createCaller>;

/** Token principals with agent labels, and two signed-in people. */
export const ACTORS = {
  viewer: { principalId: "token:10", principalKind: "token", role: "viewer", label: "viewer_1" },
  developer: { principalId: "token:1", principalKind: "token", role: "agent", label: "developer_1" },
  developer2: { principalId: "token:4", principalKind: "token", role: "agent", label: "developer_2" },
  verifier: { principalId: "token:2", principalKind: "token", role: "verifier", label: "verifier_1" },
  verifier2: { principalId: "token:5", principalKind: "token", role: "verifier", label: "verifier_2" },
  orchestrator: { principalId: "token:3", principalKind: "token", role: "orchestrator", label: "orchestrator_1" },
  lead: { principalId: "user:lead", principalKind: "user", role: "lead", label: "lead@example.com" },
  admin: { principalId: "user:admin", principalKind: "user", role: "admin", label: "admin@example.com" },
} as const satisfies Record<string, Actor>;

export type ActorName = keyof typeof ACTORS;

export function tokenActor(id: number, role: Role, label: string): Actor {
  return { principalId: `token:${id}`, principalKind: "token", role, label };
}

export function callerFor(db: Db, actor: Actor | null, extra: Partial<Omit<ApiContext, "db" | "actor">> = {}, signal?: AbortSignal): Caller {
  return createCaller({ db, actor, via: "internal", sameOrigin: true, ...extra }, signal ? { signal } : undefined);
}

export interface Fixture {
  db: Db;
  /** A caller acting as one of the standard actors. */
  as: (name: ActorName) => Caller;
  /** A caller acting as any actor. */
  by: (actor: Actor | null) => Caller;
}

export function setup(db: Db = createMemoryDb()): Fixture {
  return { db, as: (name) => callerFor(db, ACTORS[name]), by: (actor) => callerFor(db, actor) };
}

/** A session (enforce unless told) with one pending task `t1`, made by the orchestrator. */
export async function sessionWithTask(f: Fixture, id = "s1", enforcement: "enforce" | "observe" = "enforce", key = "t1"): Promise<void> {
  await f.as("orchestrator").session.create({ id, enforcement });
  await f.as("orchestrator").task.create({ sessionId: id, key, title: `Task ${key}` });
}

export const PASSED: Proofpack = {
  verdict: "PASSED",
  checks: [
    { name: "unit tests", passed: true },
    { name: "screenshot", passed: true },
  ],
};
export const BLOCKED: Proofpack = { verdict: "BLOCKED", checks: [{ name: "component tests", passed: false, detail: "3 failing" }] };

/** Every table's row count: "nothing was written" is this map unchanged. */
export function tableCounts(db: Db): Record<string, number> {
  const tables = db.$client
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%' order by name")
    .all() as { name: string }[];
  return Object.fromEntries(tables.map(({ name }) => [name, (db.$client.prepare(`select count(*) as n from "${name}"`).get() as { n: number }).n]));
}

export function count(db: Db, table: string, where = "1 = 1", ...params: unknown[]): number {
  return (db.$client.prepare(`select count(*) as n from "${table}" where ${where}`).get(...params) as { n: number }).n;
}

export function rows<T = Record<string, unknown>>(db: Db, sql: string, ...params: unknown[]): T[] {
  return db.$client.prepare(sql).all(...params) as T[];
}

export function eventTypes(db: Db, sessionId?: string): string[] {
  return sessionId === undefined
    ? rows<{ type: string }>(db, "select type from events order by id").map((r) => r.type)
    : rows<{ type: string }>(db, "select type from events where session_id = ? order by id", sessionId).map((r) => r.type);
}

export interface Refusal {
  error: TRPCError;
  code: TRPCError["code"];
  message: string;
  /** The formatted `data` an HTTP client would receive (rule, field, reasons, issues). */
  data: { code: string; httpStatus: number; rule?: string; field?: string; reasons?: string[]; issues?: { path: string; message: string }[] };
}

/**
 * Await a call that must fail, and return the error as the API would format it. The API logs
 * internal errors to the console; that log is kept out of the test output here.
 */
export async function refusal(call: Promise<unknown>): Promise<Refusal> {
  let caught: unknown;
  const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    await call;
  } catch (error) {
    caught = error;
  } finally {
    log.mockRestore();
  }
  expect(caught, "expected the call to be refused").toBeInstanceOf(TRPCError);
  const error = caught as TRPCError;
  const shape = getErrorShape({ config: appRouter._def._config, error, type: "unknown", path: undefined, input: undefined, ctx: undefined });
  return { error, code: error.code, message: shape.message, data: shape.data as Refusal["data"] };
}

/** The call is refused FORBIDDEN, naming `rule` (in `data.rule`, or in the message for role middleware refusals). */
export async function expectForbidden(call: Promise<unknown>, rule: string | RegExp): Promise<Refusal> {
  const r = await refusal(call);
  expect(r.code).toBe("FORBIDDEN");
  const named = `${r.data.rule ?? ""} ${r.message}`;
  if (typeof rule === "string") expect(named).toContain(rule);
  else expect(named).toMatch(rule);
  return r;
}

/** Refused BAD_REQUEST with the field named in the message. */
export async function expectBadRequest(call: Promise<unknown>, field: string): Promise<Refusal> {
  const r = await refusal(call);
  expect(r.code).toBe("BAD_REQUEST");
  expect(r.message).toContain(`${field}:`);
  return r;
}

export async function expectNotFound(call: Promise<unknown>): Promise<Refusal> {
  const r = await refusal(call);
  expect(r.code).toBe("NOT_FOUND");
  return r;
}

/** The call fails and not one row of any table (events included) was written. On either engine. */
export async function expectNothingWritten(db: Db, call: () => Promise<unknown>): Promise<Refusal> {
  const before = await tableCountsOf(db);
  const r = await refusal(call());
  expect(await tableCountsOf(db)).toEqual(before);
  return r;
}

/** Every procedure path of the app router with its type, e.g. `task.claim` → `mutation`. */
export function procedurePaths(): Record<string, "query" | "mutation" | "subscription"> {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: "query" | "mutation" | "subscription" } }>;
  return Object.fromEntries(Object.entries(procedures).map(([path, p]) => [path, p._def.type]));
}

/** Every `table.column` whose stored value (as text) contains `needle`: used to prove a secret is stored nowhere. */
export function columnsContaining(db: Db, needle: string): string[] {
  const found: string[] = [];
  const tables = rows<{ name: string }>(db, "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'");
  for (const { name } of tables) {
    for (const column of rows<{ name: string }>(db, `select name from pragma_table_info('${name}')`)) {
      if (count(db, name, `instr(cast("${column.name}" as text), ?) > 0`, needle) > 0) found.push(`${name}.${column.name}`);
    }
  }
  return found;
}
