/**
 * Helpers for the database-level tests: raw SQL through better-sqlite3 on a fresh migrated
 * database, so what is tested is the triggers and constraints, not the services above them.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";
import { expect } from "vitest";
import { createMemoryDb } from "@/db/client";

export type Sqlite = Database.Database;
export type Status = "pending" | "in_progress" | "claimed" | "verified" | "blocked" | "completed";
export type Row = Record<string, unknown>;

export const STATUSES: readonly Status[] = ["pending", "in_progress", "claimed", "verified", "blocked", "completed"];

export function freshSqlite(): Sqlite {
  return createMemoryDb().$client;
}

export function addSession(sqlite: Sqlite, id: string, enforcement: "enforce" | "observe" = "enforce"): void {
  sqlite.prepare("INSERT INTO sessions (id, enforcement) VALUES (?, ?)").run(id, enforcement);
}

/**
 * A migrations folder, made in `dir`, holding the committed migrations before the one whose tag
 * ends in `suffix`: what a database created by an older version was migrated with.
 */
export function migrationsBefore(dir: string, suffix: string): string {
  const committed = fileURLToPath(new URL("../../db/migrations", import.meta.url));
  const journal = JSON.parse(fs.readFileSync(path.join(committed, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const until = journal.entries.findIndex((e) => e.tag.endsWith(suffix));
  if (until === -1) throw new Error(`no migration *${suffix} in the journal`);
  const folder = path.join(dir, `migrations-before${suffix}`);
  fs.mkdirSync(path.join(folder, "meta"), { recursive: true });
  const entries = journal.entries.slice(0, until);
  for (const entry of entries) fs.copyFileSync(path.join(committed, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  fs.writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }));
  return folder;
}

export function row(sqlite: Sqlite, table: string, id: number | string): Row | undefined {
  return sqlite.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Row | undefined;
}

export function count(sqlite: Sqlite, table: string, where = "1"): number {
  return (sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;
}

/** `run` must throw an error whose message starts with the rule id. */
export function expectRule(run: () => unknown, ruleId: string): void {
  const escaped = ruleId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  expect(run).toThrow(new RegExp(`^${escaped}`));
}

/** The statement is refused with `ruleId` and the row reads back exactly as before. */
export function expectRefused(sqlite: Sqlite, table: string, id: number | string, statement: string, ruleId: string): void {
  const before = row(sqlite, table, id);
  expect(before).toBeDefined();
  expectRule(() => sqlite.prepare(statement).run(), ruleId);
  expect(row(sqlite, table, id)).toEqual(before);
}

export const CLAIMANT = { label: "developer_1", principal: "token:developer" };
export const VERIFIER = { label: "verifier_1", principal: "token:verifier" };

/**
 * The columns a task at each status carries when the machine put it there (a claimant; a verifier
 * and `verification = 'verified'` for verified and completed; a blocker for blocked).
 */
export const CARRIES: Record<Status, string> = {
  pending: "",
  in_progress: "",
  claimed: `claimed_by = '${CLAIMANT.label}', claimed_by_principal = '${CLAIMANT.principal}'`,
  verified: `verified_by = '${VERIFIER.label}', verified_by_principal = '${VERIFIER.principal}', verification = 'verified'`,
  blocked: `blocked_by = '${VERIFIER.label}', blocked_by_principal = '${VERIFIER.principal}'`,
  completed: `verified_by = '${VERIFIER.label}', verified_by_principal = '${VERIFIER.principal}', verification = 'verified', completed_by = 'orchestrator'`,
};

export function setStatus(status: Status, extra = ""): string {
  return [`status = '${status}'`, CARRIES[status], extra].filter((part) => part.length > 0).join(", ");
}

/** The legal path from pending to each status, as the machine would walk it. */
const PATH: Record<Status, Status[]> = {
  pending: [],
  in_progress: ["in_progress"],
  claimed: ["in_progress", "claimed"],
  verified: ["in_progress", "claimed", "verified"],
  blocked: ["in_progress", "claimed", "blocked"],
  completed: ["in_progress", "claimed", "verified", "completed"],
};

export function insertTask(sqlite: Sqlite, sessionId: string, key: string): number {
  const result = sqlite.prepare("INSERT INTO tasks (session_id, key, title) VALUES (?, ?, ?)").run(sessionId, key, `task ${key}`);
  return Number(result.lastInsertRowid);
}

/** A pending task walked along legal raw UPDATEs to `status`. */
export function taskAt(sqlite: Sqlite, sessionId: string, key: string, status: Status): number {
  const id = insertTask(sqlite, sessionId, key);
  for (const step of PATH[status]) sqlite.prepare(`UPDATE tasks SET ${setStatus(step)} WHERE id = ?`).run(id);
  expect(row(sqlite, "tasks", id)?.status).toBe(status);
  return id;
}
