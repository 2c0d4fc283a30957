import { beforeEach, describe, expect, it } from "vitest";
import { LEGAL_EDGES } from "@/server/domain/task-machine";
import {
  CARRIES,
  CLAIMANT,
  STATUSES,
  type Sqlite,
  type Status,
  VERIFIER,
  addSession,
  count,
  expectRefused,
  expectRule,
  freshSqlite,
  row,
  setStatus,
  taskAt,
} from "@/test/support/db-fixtures";

// Written out by hand from DESIGN.md's table, not derived from LEGAL_EDGES: the triggers are generated
// from that list, so a mistake in it must not also become the test's expectation.
const LEGAL = new Set([
  "pending>in_progress",
  "pending>claimed",
  "in_progress>claimed",
  "claimed>verified",
  "claimed>blocked",
  "verified>completed",
  "blocked>pending",
]);
const PAIRS = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => ({ from, to, legal: LEGAL.has(`${from}>${to}`) })));

let sqlite: Sqlite;
beforeEach(() => {
  sqlite = freshSqlite();
  addSession(sqlite, "enf", "enforce");
  addSession(sqlite, "obs", "observe");
});

const update = (id: number, set: string) => `UPDATE tasks SET ${set} WHERE id = ${id}`;

it("the literal edge list is the domain's, and 30 ordered pairs leave 23 refused", () => {
  expect(new Set(LEGAL_EDGES.map(([from, to]) => `${from}>${to}`))).toEqual(LEGAL);
  expect(PAIRS.filter((p) => !p.legal)).toHaveLength(23);
});

describe("an enforce session", () => {
  it.each(PAIRS)("$from -> $to (legal: $legal) as a raw UPDATE", ({ from, to, legal }) => {
    const id = taskAt(sqlite, "enf", "T1", from);
    // The statement carries everything the target status needs, so only the edge itself can be wrong.
    const statement = update(id, setStatus(to));
    if (legal) {
      sqlite.prepare(statement).run();
      expect(row(sqlite, "tasks", id)?.status).toBe(to);
    } else {
      expectRefused(sqlite, "tasks", id, statement, "task.forbidden_transition");
      expect(row(sqlite, "tasks", id)?.status).toBe(from);
    }
  });

  it("refuses the issue's example: UPDATE tasks SET status='completed' on a claimed task", () => {
    const id = taskAt(sqlite, "enf", "T1", "claimed");
    expectRefused(sqlite, "tasks", id, `UPDATE tasks SET status='completed' WHERE id = ${id}`, "task.forbidden_transition");
    expect(row(sqlite, "tasks", id)).toMatchObject({ status: "claimed", verification: null, completed_by: null });
  });

  it("accepts an update that leaves the status alone, like a reset request on a blocked task", () => {
    const id = taskAt(sqlite, "enf", "T1", "blocked");
    sqlite.prepare(update(id, "status = 'blocked', reset_requested = 1, reset_reason = 'flaky CI'")).run();
    expect(row(sqlite, "tasks", id)).toMatchObject({ status: "blocked", reset_requested: 1 });
  });

  it("accepts a declined reset request (blocked → blocked): the flag cleared, the wait and the counters kept right", () => {
    const id = taskAt(sqlite, "enf", "T1", "blocked");
    sqlite.prepare(update(id, "blocked_at = 1000")).run();
    sqlite.prepare(update(id, "reset_requested = 1, reset_reason = 'flaky CI'")).run();
    expect(row(sqlite, "sessions", "enf")).toMatchObject({ reset_requests: 1 });
    sqlite.prepare(update(id, "status = 'blocked', reset_requested = 0, reset_requested_by = NULL, reset_reason = NULL")).run();
    sqlite
      .prepare(
        "INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, role, reason, at) VALUES (?, 'enf', 'decline_reset', 'blocked', 'blocked', 'lead@example.com', 'lead', 'still failing', 5000)",
      )
      .run(id);
    // Declining does not restart the wait (blocked_at) and ends no blocked spell; the inbox's counter drops.
    expect(row(sqlite, "tasks", id)).toMatchObject({ status: "blocked", reset_requested: 0, blocked_at: 1000 });
    expect(row(sqlite, "sessions", "enf")).toMatchObject({ reset_requests: 0 });
    expect(count(sqlite, "analytics_rollups", "figure = 'spell'")).toBe(0);
  });

  it("verifies only with verification = 'verified' and a named verifier in the same statement", () => {
    const id = taskAt(sqlite, "enf", "T1", "claimed");
    expectRefused(sqlite, "tasks", id, update(id, "status = 'verified'"), "task.verification_required");
    expectRefused(sqlite, "tasks", id, update(id, `status = 'verified', verified_by = '${VERIFIER.label}'`), "task.verification_required");
    expectRefused(sqlite, "tasks", id, update(id, "status = 'verified', verification = 'verified'"), "task.verification_required");
    expectRefused(sqlite, "tasks", id, update(id, `status = 'verified', verification = 'none', verified_by = 'v'`), "task.verification_required");
  });

  it("keeps a verified or completed task verified: clearing the verification or the verifier is refused", () => {
    for (const status of ["verified", "completed"] as const) {
      const id = taskAt(sqlite, "enf", status, status);
      expectRefused(sqlite, "tasks", id, update(id, "verification = NULL"), "task.verification_required");
      expectRefused(sqlite, "tasks", id, update(id, "verification = 'none'"), "task.verification_required");
      expectRefused(sqlite, "tasks", id, update(id, "verified_by = NULL"), "task.verification_required");
    }
  });

  it("never records an unverified task, whatever its status", () => {
    const id = taskAt(sqlite, "enf", "T1", "in_progress");
    expectRefused(sqlite, "tasks", id, update(id, "verification = 'none'"), "task.verification_required");
  });
});

describe("an observe session", () => {
  it.each(PAIRS)("$from -> $to (legal: $legal) as a raw UPDATE", ({ from, to, legal }) => {
    const id = taskAt(sqlite, "obs", "T1", from);
    if (legal) {
      sqlite.prepare(update(id, setStatus(to))).run();
      expect(row(sqlite, "tasks", id)?.status).toBe(to);
      return;
    }
    expectRefused(sqlite, "tasks", id, update(id, `status = '${to}'`), "task.unverified_status");
    expect(row(sqlite, "tasks", id)?.status).toBe(from);
    sqlite.prepare(update(id, `status = '${to}', verification = 'none'`)).run();
    expect(row(sqlite, "tasks", id)).toMatchObject({ status: to, verification: "none" });
  });

  it("records an on-machine verify without a verifier as unverified, never with verification NULL", () => {
    const id = taskAt(sqlite, "obs", "T1", "claimed");
    expectRefused(sqlite, "tasks", id, update(id, "status = 'verified'"), "task.unverified_status");
    expectRefused(sqlite, "tasks", id, update(id, "status = 'verified', verification = 'verified'"), "task.unverified_status");
    sqlite.prepare(update(id, "status = 'verified', verification = 'none'")).run();
    sqlite.prepare(update(id, "status = 'completed'")).run();
    expect(row(sqlite, "tasks", id)).toMatchObject({ status: "completed", verification: "none" });
  });

  it("never launders an unverified completion into a verified one", () => {
    const id = taskAt(sqlite, "obs", "T1", "in_progress");
    sqlite.prepare(update(id, "status = 'completed', verification = 'none'")).run();
    expectRefused(sqlite, "tasks", id, update(id, "verification = NULL"), "task.unverified_status");
    expectRefused(sqlite, "tasks", id, update(id, CARRIES.verified), "task.unverified_status");
  });
});

describe("never the claimant", () => {
  const verify = (set: string) => `status = 'verified', verification = 'verified', ${set}`;
  const block = (set: string) => `status = 'blocked', ${set}`;
  const cases = [
    {
      name: "verify by the claimant's label",
      set: verify(`verified_by = '${CLAIMANT.label}', verified_by_principal = 'token:other'`),
      rule: "task.claimant_cannot_verify",
    },
    {
      name: "verify by the claimant's principal",
      set: verify(`verified_by = 'someone_else', verified_by_principal = '${CLAIMANT.principal}'`),
      rule: "task.claimant_cannot_verify",
    },
    {
      name: "block by the claimant's label",
      set: block(`blocked_by = '${CLAIMANT.label}', blocked_by_principal = 'token:other'`),
      rule: "task.claimant_cannot_block",
    },
    {
      name: "block by the claimant's principal",
      set: block(`blocked_by = 'someone_else', blocked_by_principal = '${CLAIMANT.principal}'`),
      rule: "task.claimant_cannot_block",
    },
    {
      name: "block by the claimant's principal, label left out",
      set: block(`blocked_by_principal = '${CLAIMANT.principal}'`),
      rule: "task.claimant_cannot_block",
    },
  ];

  it.each(cases)("refuses $name in both policies", ({ set, rule }) => {
    for (const session of ["enf", "obs"]) {
      const id = taskAt(sqlite, session, `T-${session}`, "claimed");
      expectRefused(sqlite, "tasks", id, update(id, set), rule);
    }
  });

  it("accepts a different label and principal, and a different label when neither has a principal (local operator)", () => {
    const a = taskAt(sqlite, "enf", "A", "claimed");
    sqlite.prepare(update(a, verify(`verified_by = 'verifier_2', verified_by_principal = 'token:verifier'`))).run();
    const b = taskAt(sqlite, "enf", "B", "claimed");
    sqlite.prepare(update(b, block(`blocked_by = 'verifier_2', blocked_by_principal = 'user:lead'`))).run();
    const c = taskAt(sqlite, "enf", "C", "claimed");
    sqlite.prepare(update(c, "claimed_by_principal = NULL")).run();
    sqlite.prepare(update(c, verify("verified_by = 'qa_1', verified_by_principal = NULL"))).run();
    expect([a, b, c].map((id) => row(sqlite, "tasks", id)?.status)).toEqual(["verified", "blocked", "verified"]);
  });

  it("refuses rewriting the claimant of a verified task into its verifier", () => {
    const id = taskAt(sqlite, "enf", "T1", "verified");
    expectRefused(sqlite, "tasks", id, update(id, `claimed_by = '${VERIFIER.label}'`), "task.claimant_cannot_verify");
  });

  it.each([
    { status: "completed", by: "verified_by", rule: "task.claimant_cannot_verify" },
    { status: "blocked", by: "blocked_by", rule: "task.claimant_cannot_block" },
  ])("refuses inserting a $status task its claimant judged (observe import)", ({ status, by, rule }) => {
    const insert = `INSERT INTO tasks (session_id, key, title, status, verification, claimed_by, ${by})
      VALUES ('obs', 'T1', 't', '${status}', 'none', 'dev', 'dev')`;
    expectRule(() => sqlite.prepare(insert).run(), rule);
    expect(count(sqlite, "tasks")).toBe(0);
  });
});

describe("creating tasks", () => {
  const insert = (session: string, status: Status, verification: string | null) => () =>
    sqlite
      .prepare("INSERT INTO tasks (session_id, key, title, status, verification) VALUES (?, ?, 't', ?, ?)")
      .run(session, `${status}/${verification}`, status, verification);

  it("an enforce session inserts only pending tasks with no verification", () => {
    insert("enf", "pending", null)();
    for (const status of STATUSES.filter((s) => s !== "pending")) {
      for (const verification of [null, "none", "verified"]) expectRule(insert("enf", status, verification), "task.create_status");
    }
    expectRule(insert("enf", "pending", "none"), "task.create_status");
    expectRule(insert("enf", "pending", "verified"), "task.create_status");
    expect(count(sqlite, "tasks")).toBe(1);
  });

  it("an observe session inserts a verified, blocked or completed task only with verification = 'none'", () => {
    for (const status of ["verified", "blocked", "completed"] as const) {
      expectRule(insert("obs", status, null), "task.unverified_status");
      expectRule(insert("obs", status, "verified"), "task.unverified_status");
      expect(count(sqlite, "tasks", `status = '${status}'`)).toBe(0);
      insert("obs", status, "none")();
      expect(count(sqlite, "tasks", `status = '${status}' AND verification = 'none'`)).toBe(1);
    }
    for (const status of ["pending", "in_progress", "claimed"] as const) insert("obs", status, null)();
    expect(count(sqlite, "tasks")).toBe(6);
  });
});

describe("task identity", () => {
  it("refuses moving a task to another session or renaming its key", () => {
    const id = taskAt(sqlite, "enf", "T1", "claimed");
    expectRefused(sqlite, "tasks", id, update(id, "session_id = 'obs'"), "task.identity_immutable");
    expectRefused(sqlite, "tasks", id, update(id, "key = 'T2'"), "task.identity_immutable");
    sqlite.prepare(update(id, "title = 'renamed', description = 'ok'")).run();
    expect(row(sqlite, "tasks", id)).toMatchObject({ key: "T1", session_id: "enf", title: "renamed" });
  });
});
