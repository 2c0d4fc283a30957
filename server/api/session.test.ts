import { nextMillisecond } from "@/test/support/clock";
import { describe, expect, it, vi } from "vitest";
import { createMemoryDb } from "@/db/client";
import {
  ACTORS,
  callerFor,
  count,
  eventTypes,
  expectBadRequest,
  expectForbidden,
  expectNotFound,
  expectNothingWritten,
  refusal,
  rows,
  setup,
} from "@/test/support/api-helpers";

describe("session.create", () => {
  it("creates an enforce session by default, stores it and appends session.created with the actor", async () => {
    const f = setup();
    const session = await f.as("orchestrator").session.create({ id: "bazinga_20250112_143022", requirements: "Fix all bugs", mode: "parallel" });
    expect(session).toMatchObject({
      id: "bazinga_20250112_143022",
      status: "active",
      enforcement: "enforce",
      source: "api",
      requirements: "Fix all bugs",
      mode: "parallel",
    });
    expect(session.startedAt).toBeInstanceOf(Date);
    const [stored] = rows(f.db, "select id, status, enforcement, requirements from sessions");
    expect(stored).toEqual({ id: "bazinga_20250112_143022", status: "active", enforcement: "enforce", requirements: "Fix all bugs" });
    const [event] = rows(f.db, "select type, session_id, entity, entity_id, actor, principal_id, role from events");
    expect(event).toEqual({
      type: "session.created",
      session_id: "bazinga_20250112_143022",
      entity: "session",
      entity_id: "bazinga_20250112_143022",
      actor: "orchestrator_1",
      principal_id: "token:3",
      role: "orchestrator",
    });
  });

  it("generates an id when none is given, and keeps an observe policy", async () => {
    const f = setup();
    const session = await f.as("developer").session.create({ enforcement: "observe" });
    expect(session.id).toMatch(/^pg_\d{14}_[0-9a-f]{8}$/);
    expect(session.enforcement).toBe("observe");
    expect(count(f.db, "sessions", "id = ? and enforcement = 'observe'", session.id)).toBe(1);
  });

  it("refuses a second session with the same id as a CONFLICT and writes nothing", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    const r = await expectNothingWritten(f.db, () => f.as("lead").session.create({ id: "s1" }));
    expect(r.code).toBe("CONFLICT");
    expect(r.data.rule).toBe("session.exists");
  });

  it.each(["viewer", "verifier"] as const)("refuses a %s FORBIDDEN (session.create_role) and writes nothing", async (name) => {
    const f = setup();
    const r = await expectNothingWritten(f.db, () => f.as(name).session.create({ id: "s1" }));
    expect(r.code).toBe("FORBIDDEN");
    expect(r.data.rule).toBe("session.create_role");
  });

  it("refuses bad input and writes nothing", async () => {
    const f = setup();
    await expectNothingWritten(f.db, () => f.as("orchestrator").session.create({ id: "has spaces!" }));
    await expectNothingWritten(f.db, () => f.as("orchestrator").session.create({ id: "s1", enforcement: "lenient" as "observe" }));
    await expectNothingWritten(f.db, () => f.as("orchestrator").session.create({ id: "s1", unknownField: 1 } as never));
  });

  it("refuses a malformed session id BAD_REQUEST naming the field", async () => {
    const f = setup();
    const r = await expectBadRequest(f.as("orchestrator").session.create({ id: "has spaces!" }), "id");
    expect(r.data.rule).toBe("input.invalid");
    expect(r.data.issues?.[0]?.path).toBe("id");
  });
});

describe("session.get and session.list", () => {
  it("gets a session for a viewer, and NOT_FOUND for an unknown id", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1", requirements: "Ship it" });
    expect(await f.as("viewer").session.get({ id: "s1" })).toMatchObject({ id: "s1", requirements: "Ship it", status: "active" });
    const r = await expectNotFound(f.as("viewer").session.get({ id: "nope" }));
    expect(r.data.rule).toBe("session.not_found");
    expect(r.message).toContain('"nope"');
  });

  it("lists sessions newest first, filters by status and search, and pages with a cursor", async () => {
    const f = setup();
    for (const id of ["s_a", "s_b", "s_c"]) {
      await f.as("orchestrator").session.create({ id, requirements: id === "s_b" ? "needle in requirements" : "other" });
      await nextMillisecond();
    }
    await f.as("orchestrator").session.updateStatus({ sessionId: "s_a", status: "failed" });
    const viewer = f.as("viewer");
    expect((await viewer.session.list({})).items.map((s) => s.id)).toEqual(["s_c", "s_b", "s_a"]);
    expect((await viewer.session.list({ status: "failed" })).items.map((s) => s.id)).toEqual(["s_a"]);
    expect((await viewer.session.list({ search: "needle" })).items.map((s) => s.id)).toEqual(["s_b"]);
    const first = await viewer.session.list({ limit: 2 });
    expect(first.items.map((s) => s.id)).toEqual(["s_c", "s_b"]);
    expect(first.nextCursor).not.toBeNull();
    const second = await viewer.session.list({ limit: 2, cursor: first.nextCursor! });
    expect(second).toEqual({ items: [expect.objectContaining({ id: "s_a" })], nextCursor: null, unverifiedStops: {} });
  });

  it("refuses a cursor it never returned BAD_REQUEST naming the field", async () => {
    const f = setup();
    const r = await expectBadRequest(f.as("viewer").session.list({ cursor: "garbage" }), "cursor");
    expect(r.data).toMatchObject({ rule: "list.cursor_invalid", field: "cursor" });
  });

  it("refuses an anonymous caller UNAUTHORIZED", async () => {
    const f = setup();
    const r = await refusal(f.by(null).session.list({}));
    expect(r.code).toBe("UNAUTHORIZED");
  });
});

describe("session.updateStatus", () => {
  it("lets an orchestrator mark a session failed, stores it and appends session.status_changed", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    const result = await f.as("orchestrator").session.updateStatus({ sessionId: "s1", status: "failed" });
    expect(result.session).toMatchObject({ id: "s1", status: "failed" });
    expect(result.session.endedAt).toBeInstanceOf(Date);
    expect(result.check).toBeNull();
    expect(rows(f.db, "select status from sessions")).toEqual([{ status: "failed" }]);
    expect(rows(f.db, "select type, data from events where type = 'session.status_changed'")).toEqual([
      { type: "session.status_changed", data: JSON.stringify({ from: "active", to: "failed" }) },
    ]);
  });

  it.each(["viewer", "developer", "verifier"] as const)("refuses a %s FORBIDDEN (session.status_role)", async (name) => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    const r = await expectNothingWritten(f.db, () => f.as(name).session.updateStatus({ sessionId: "s1", status: "failed" }));
    expect(r.code).toBe("FORBIDDEN");
    expect(r.data.rule).toBe("session.status_role");
  });

  it("answers NOT_FOUND for an unknown session", async () => {
    const f = setup();
    await expectNotFound(f.as("orchestrator").session.updateStatus({ sessionId: "nope", status: "failed" }));
  });

  it("refuses an unknown status and writes nothing", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    await expectNothingWritten(f.db, () => f.as("orchestrator").session.updateStatus({ sessionId: "s1", status: "done" as "completed" }));
  });

  it("refuses to complete an enforce session with no criteria, keeps it active and records the rejected check", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    const r = await expectForbidden(f.as("orchestrator").session.updateStatus({ sessionId: "s1", status: "completed" }), "completion.rejected");
    expect(r.data.reasons).toEqual([expect.stringContaining("No required success criteria recorded")]);
    expect(rows(f.db, "select status from sessions")).toEqual([{ status: "active" }]);
    expect(rows(f.db, "select accepted, met_count, total_count from completion_checks")).toEqual([{ accepted: 0, met_count: 0, total_count: 0 }]);
    expect(eventTypes(f.db, "s1")).toEqual(["session.created", "completion.checked"]);
  });

  it("lets an observe session complete as its orchestrator said, with the rejected check on record", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1", enforcement: "observe" });
    const result = await f.as("orchestrator").session.updateStatus({ sessionId: "s1", status: "completed" });
    expect(result.session.status).toBe("completed");
    expect(result.check).toMatchObject({ accepted: false, claimedVerdict: "completed" });
    expect(eventTypes(f.db, "s1")).toEqual(["session.created", "completion.checked", "session.status_changed"]);
  });
});

describe("session.setEnforcement", () => {
  it("lets a lead switch a session to observe, with the reason in the event", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    const session = await f.as("lead").session.setEnforcement({ sessionId: "s1", enforcement: "observe", reason: "legacy orchestrator" });
    expect(session.enforcement).toBe("observe");
    expect(rows(f.db, "select enforcement from sessions")).toEqual([{ enforcement: "observe" }]);
    const [event] = rows<{ actor: string; data: string }>(f.db, "select actor, data from events where type = 'session.enforcement_changed'");
    expect(event?.actor).toBe(ACTORS.lead.label);
    expect(JSON.parse(event!.data)).toEqual({ from: "enforce", to: "observe", reason: "legacy orchestrator" });
  });

  it.each(["orchestrator", "developer", "verifier", "viewer"] as const)("refuses a %s FORBIDDEN (session.enforcement_role)", async (name) => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    const r = await expectNothingWritten(f.db, () => f.as(name).session.setEnforcement({ sessionId: "s1", enforcement: "observe", reason: "because" }));
    expect(r.code).toBe("FORBIDDEN");
    expect(r.data.rule).toBe("session.enforcement_role");
  });

  it("answers NOT_FOUND for an unknown session, and refuses a blank reason writing nothing", async () => {
    const f = setup();
    await expectNotFound(f.as("lead").session.setEnforcement({ sessionId: "nope", enforcement: "observe", reason: "x" }));
    await f.as("orchestrator").session.create({ id: "s1" });
    await expectNothingWritten(f.db, () => f.as("lead").session.setEnforcement({ sessionId: "s1", enforcement: "observe", reason: "   " }));
  });
});

describe("session.enforcementHistory", () => {
  it("lists every switch newest first with who, role, when, from, to and why; any reader may see it", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    await f.as("orchestrator").session.create({ id: "s2" });
    expect(await f.as("viewer").session.enforcementHistory({ sessionId: "s1" })).toEqual([]);
    await f.as("lead").session.setEnforcement({ sessionId: "s1", enforcement: "observe", reason: "legacy orchestrator" });
    await f.as("lead").session.setEnforcement({ sessionId: "s2", enforcement: "observe", reason: "another session" });
    await f.as("lead").session.setEnforcement({ sessionId: "s1", enforcement: "enforce", reason: "agents verify now" });
    const history = await f.as("viewer").session.enforcementHistory({ sessionId: "s1" });
    expect(history.map(({ actor, role, from, to, reason }) => ({ actor, role, from, to, reason }))).toEqual([
      { actor: ACTORS.lead.label, role: "lead", from: "observe", to: "enforce", reason: "agents verify now" },
      { actor: ACTORS.lead.label, role: "lead", from: "enforce", to: "observe", reason: "legacy orchestrator" },
    ]);
    expect(history[0]!.at).toBeInstanceOf(Date);
    expect(await f.as("viewer").session.enforcementHistory({ sessionId: "s1", limit: 1 })).toHaveLength(1);
  });

  it("answers NOT_FOUND for an unknown session", async () => {
    const f = setup();
    await expectNotFound(f.as("viewer").session.enforcementHistory({ sessionId: "nope" }));
  });
});

describe("internal errors", () => {
  it("reach the caller as a generic INTERNAL_SERVER_ERROR without details, and are logged", async () => {
    const db = createMemoryDb();
    db.$client.close();
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    let caught: unknown;
    let logged: unknown[][] = [];
    try {
      await callerFor(db, ACTORS.viewer).session.list({});
    } catch (error) {
      caught = error;
    } finally {
      logged = [...log.mock.calls];
      log.mockRestore();
    }
    const r = await refusal(Promise.reject(caught));
    expect(r.code).toBe("INTERNAL_SERVER_ERROR");
    expect(r.message).toBe("internal error");
    expect(r.data.rule).toBeUndefined();
    expect(r.error.cause).toBeUndefined();
    expect(logged).toEqual([["proofgate: internal error", expect.any(Error)]]);
  });
});
