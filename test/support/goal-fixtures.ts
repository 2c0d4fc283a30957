/**
 * Shared set-up for the goal and attempt service tests: a fresh migrated ledger (in-memory SQLite
 * unless given one, e.g. a PostgreSQL one from test/support/engines.ts) with one session, actors of every role, a clock the test moves, and row counts to prove a refused
 * write left nothing behind.
 */
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { createMemoryDb, type Db } from "@/db/client";
import { countOf, rowsOf } from "./rows";
import { type Actor, type Role, operatorActor } from "@/server/domain/actors";
import { DomainError } from "@/server/domain/errors";
import { finishAttempt } from "@/server/services/attempt/finish";
import { recordTrustScore } from "@/server/services/attempt/record-trust-score";
import type { FinishAttemptInput } from "@/server/services/attempt/schemas";
import { startAttempt } from "@/server/services/attempt/start";
import type { ServiceContext } from "@/server/services/context";
import { createSession } from "@/server/services/session/create";
import { createGoal } from "@/server/services/goal/create";

const token = (label: string, role: Role): Actor => ({ principalId: `token:${label}`, principalKind: "token", role, label });

export const ORCHESTRATOR = token("orchestrator", "orchestrator");
export const AGENT = token("developer_1", "agent");
export const VERIFIER = token("verifier_1", "verifier");
export const LEAD: Actor = { principalId: "user:lead", principalKind: "user", role: "lead", label: "lead@example.com" };
export const ADMIN = operatorActor("operator");
export const VIEWER: Actor = { principalId: "user:viewer", principalKind: "user", role: "viewer", label: "viewer@example.com" };

/** An actor of `role` that recorded nothing, so only its role decides what it may do. */
export const actorWithRole = (role: Role): Actor => token(`${role}_matrix`, role);

export const START = Date.parse("2025-01-12T14:30:00Z");

export interface Fixture {
  db: Db;
  sessionId: string;
  as: (actor: Actor) => ServiceContext;
  /** Move the shared clock forward. */
  advance: (ms: number) => void;
}

export async function setup(db: Db = createMemoryDb(), sessionId = "s1"): Promise<Fixture> {
  let now = START;
  const as = (actor: Actor): ServiceContext => ({ db, actor, now: () => new Date(now) });
  await createSession(as(ADMIN), { id: sessionId });
  return { db, sessionId, as, advance: (ms) => (now += ms) };
}

const TABLES = [
  "sessions",
  "goals",
  "validation_steps",
  "branches",
  "worktrees",
  "attempts",
  "tools",
  "attempt_tools",
  "attempt_results",
  "tool_calls",
  "validation_runs",
  "merges",
  "goal_contracts",
  "acceptance_criteria",
  "trust_scores",
  "goal_gate_evaluations",
  "events",
] as const;

export function rowCount(db: Db, table: (typeof TABLES)[number]): Promise<number> {
  return countOf(db, table);
}

export async function rowCounts(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = await rowCount(db, table);
  return counts;
}

/** `run` must be refused with a domain error naming `rule`; returns the error. */
export async function expectRefused(run: () => unknown, rule: string): Promise<DomainError> {
  let caught: unknown;
  try {
    await run();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a refusal naming ${rule}`).toBeInstanceOf(DomainError);
  expect((caught as DomainError).rule).toBe(rule);
  return caught as DomainError;
}

/** `run` is refused with `rule` and no table gained or lost a row (the write was one transaction). */
export async function expectNothingWritten(db: Db, run: () => unknown, rule: string): Promise<DomainError> {
  const before = await rowCounts(db);
  const error = await expectRefused(run, rule);
  expect(await rowCounts(db)).toEqual(before);
  return error;
}

/** The newest events row, parsed. */
export async function lastEvent(db: Db): Promise<{
  type: string;
  entity: string;
  entityId: string | null;
  sessionId: string | null;
  actor: string;
  role: string | null;
  data: Record<string, unknown> | null;
}> {
  const [row] = await rowsOf<{ data: string | null } & Record<string, string>>(
    db,
    sql`SELECT type, entity, entity_id AS "entityId", session_id AS "sessionId", actor, role, data FROM events ORDER BY id DESC LIMIT 1`,
  );
  return { ...row!, data: row!.data === null ? null : (JSON.parse(row!.data) as Record<string, unknown>) } as Awaited<ReturnType<typeof lastEvent>>;
}

/** A root goal created by the orchestrator. */
export async function rootGoal(f: Fixture, goalText = "Migrate the build to Bazel"): Promise<number> {
  return (await createGoal(f.as(ORCHESTRATOR), { sessionId: f.sessionId, goalText })).id;
}

export interface AttemptOptions {
  attemptType?: "implementation" | "breakdown";
  model?: string;
  status?: FinishAttemptInput["status"];
  evidence?: Omit<FinishAttemptInput, "attemptId" | "status">;
  /** A verifier's trust score, recorded after the result when given. */
  score?: number;
}

/** An attempt the orchestrator started and finished, optionally scored by the verifier. Returns its id. */
export async function finishedAttempt(f: Fixture, goalId: number, options: AttemptOptions = {}): Promise<number> {
  const { attempt } = await startAttempt(f.as(ORCHESTRATOR), { goalId, attemptType: options.attemptType, model: options.model ?? "model-a" });
  f.advance(60_000);
  await finishAttempt(f.as(ORCHESTRATOR), { attemptId: attempt.id, status: options.status ?? "completed", ...options.evidence });
  if (options.score !== undefined) await recordTrustScore(f.as(VERIFIER), { attemptId: attempt.id, score: options.score });
  return attempt.id;
}
