// flake-risks wait: lets a subscriber reach its wait before the write (an ordering aid): a write landing first is delivered too, its own test, so a slow machine changes the path taken, not the result; the other timer is a hang guard
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Db, openDatabase } from "@/db/client";
import type { EventRow } from "@/server/services/events/list";
import { eventTail } from "./live";
import { ACTORS, type Caller, PASSED, callerFor, count, eventTypes, expectNothingWritten, refusal, rows, setup } from "@/test/support/api-helpers";

type Stream = AsyncIterator<readonly [string, EventRow, ...unknown[]]>;

/** Open `events.stream` on its own caller, with an AbortController that ends it. */
async function openStream(db: Db, input: { lastEventId?: number; sessionId?: string }): Promise<{ iterator: Stream; close: () => Promise<void> }> {
  const abort = new AbortController();
  const iterable = await callerFor(db, ACTORS.viewer, {}, abort.signal).events.stream(input);
  const iterator = (iterable as unknown as AsyncIterable<readonly [string, EventRow]>)[Symbol.asyncIterator]();
  return {
    iterator,
    close: async () => {
      abort.abort();
      await iterator.return?.(undefined);
    },
  };
}

const TIMEOUT = Symbol("timeout");

/**
 * Let a subscriber that was just asked for its next event reach its wait before the test writes,
 * so these tests exercise the poller's wake-up (a write landing before the wait is covered by the
 * "written while the consumer was busy" test).
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/**
 * Only stops a stream that never delivers (the test then fails with TIMEOUT rather than the runner's
 * timeout); no claim about speed, which is `npm run bench`'s.
 */
const HANG_MS = 20_000;

/** The next event, or TIMEOUT after `ms` (the pending read is left to the abort). */
async function nextEvent(iterator: Stream, ms = HANG_MS): Promise<EventRow | typeof TIMEOUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), ms);
  });
  const next = iterator.next().then((result) => {
    if (result.done) throw new Error("stream ended");
    const [id, row] = result.value;
    expect(id).toBe(String(row.id));
    return row;
  });
  try {
    return await Promise.race([next, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function takeEvents(iterator: Stream, n: number): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for (let i = 0; i < n; i++) {
    const row = await nextEvent(iterator);
    if (row === TIMEOUT) throw new Error(`only ${out.length} of ${n} events arrived`);
    out.push(row);
  }
  return out;
}

function ids(db: Db, where = "1 = 1"): number[] {
  return rows<{ id: number }>(db, `select id from events where ${where} order by id`).map((r) => r.id);
}

describe("events.list and events.latestId", () => {
  it("returns exactly the events after an id, in order, filtered by session and limited", async () => {
    const f = setup();
    const orchestrator = f.as("orchestrator");
    await orchestrator.session.create({ id: "s1" });
    await orchestrator.session.create({ id: "s2" });
    await orchestrator.task.create({ sessionId: "s1", key: "t1", title: "one" });
    const after = await f.as("viewer").events.latestId();
    await orchestrator.task.create({ sessionId: "s2", key: "t1", title: "two" });
    await orchestrator.task.create({ sessionId: "s1", key: "t2", title: "three" });
    await f.as("developer").task.claim({ sessionId: "s1", key: "t2" });

    const newer = await f.as("viewer").events.list({ afterId: after });
    expect(newer.map((e) => e.id)).toEqual(ids(f.db, `id > ${after}`));
    expect(newer.map((e) => [e.type, e.sessionId, e.actor])).toEqual([
      ["task.created", "s2", "orchestrator_1"],
      ["task.created", "s1", "orchestrator_1"],
      ["task.claimed", "s1", "developer_1"],
    ]);
    expect((await f.as("viewer").events.list({ afterId: after, sessionId: "s1" })).map((e) => e.type)).toEqual(["task.created", "task.claimed"]);
    expect((await f.as("viewer").events.list({ afterId: after, limit: 1 })).map((e) => e.sessionId)).toEqual(["s2"]);
    expect(await f.as("viewer").events.list({ afterId: await f.as("viewer").events.latestId() })).toEqual([]);
    expect(await f.as("viewer").events.latestId()).toBe(Math.max(...ids(f.db)));
    expect(newer[2]).toMatchObject({ entity: "task", principalId: "token:1", role: "agent", data: { key: "t2", from: "pending", to: "claimed", version: 2 } });
  });

  it("refuses malformed input and anonymous callers", async () => {
    const f = setup();
    await expectNothingWritten(f.db, () => f.as("viewer").events.list({ afterId: -1 }));
    await expectNothingWritten(f.db, () => f.as("viewer").events.list({ limit: 5000 }));
    expect((await refusal(f.by(null).events.list({}))).code).toBe("UNAUTHORIZED");
    expect((await refusal(f.by(null).events.latestId())).code).toBe("UNAUTHORIZED");
  });
});

describe("every write produces its event", () => {
  it("appends one event per mutation across a whole session, in the mutation's order", async () => {
    const f = setup();
    const S = { sessionId: "s1" };
    await f.as("orchestrator").session.create({ id: "s1" });
    await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "Tests pass" }, { criterion: "Docs" }] });
    await f.as("orchestrator").task.create({ ...S, key: "t1", title: "t" });
    await f.as("developer").task.start({ ...S, key: "t1" });
    await f.as("developer").task.claim({ ...S, key: "t1" });
    await f.as("verifier").task.verify({ ...S, key: "t1", proofpack: PASSED });
    await f.as("orchestrator").task.complete({ ...S, key: "t1" });
    await f.as("developer").criteria.update({ ...S, criterion: "Tests pass", status: "met" });
    await f.as("developer").criteria.update({ ...S, criterion: "Docs", status: "met" });
    await f.as("verifier").criteria.verify({ ...S, criterion: "Docs", status: "met" });
    await f.as("lead").criteria.setRequired({ ...S, criterion: "Docs", required: false });
    await f.as("developer").log.interaction({ ...S, agentType: "developer", content: "done" });
    await f.as("developer").log.tokens({ ...S, agentType: "developer", tokens: 5 });
    await f.as("orchestrator").completion.check(S);
    await f.as("orchestrator").session.updateStatus({ ...S, status: "completed" });

    expect(eventTypes(f.db, "s1")).toEqual([
      "session.created",
      "criteria.saved",
      "criteria.saved",
      "task.created",
      "task.started",
      "task.claimed",
      "task.verified",
      "task.completed",
      "criterion.updated",
      "criterion.updated",
      "criterion.verified",
      "criterion.updated",
      "logs.appended",
      "tokens.logged",
      "completion.checked",
      "completion.checked",
      "session.status_changed",
    ]);
    // The history tables and the events agree row for row.
    expect(count(f.db, "task_transitions")).toBe(count(f.db, "events", "entity = 'task'"));
    expect(count(f.db, "criterion_updates")).toBe(count(f.db, "events", "entity = 'criterion'"));
    expect(count(f.db, "completion_checks")).toBe(count(f.db, "events", "type = 'completion.checked'"));
    expect(rows(f.db, "select distinct actor from events where type like 'task.%' order by actor")).toEqual([
      { actor: "developer_1" },
      { actor: "orchestrator_1" },
      { actor: "verifier_1" },
    ]);
  });
});

describe("events.stream (live)", () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("yields the events after lastEventId in order, then new ones as they are written, for one session", async () => {
    const f = setup();
    const orchestrator = f.as("orchestrator");
    await orchestrator.session.create({ id: "s1" });
    const n = await f.as("viewer").events.latestId();
    await orchestrator.task.create({ sessionId: "s1", key: "t1", title: "one" });
    await orchestrator.session.create({ id: "s2" });
    await orchestrator.task.create({ sessionId: "s1", key: "t2", title: "two" });

    const stream = await openStream(f.db, { lastEventId: n, sessionId: "s1" });
    cleanups.push(stream.close);
    const backlog = await takeEvents(stream.iterator, 2);
    expect(backlog.map((e) => [e.type, e.entityId])).toEqual([
      ["task.created", String(rows<{ id: number }>(f.db, "select id from tasks where key = 't1'")[0]!.id)],
      ["task.created", String(rows<{ id: number }>(f.db, "select id from tasks where key = 't2'")[0]!.id)],
    ]);

    const pending = nextEvent(stream.iterator);
    await settle();
    await orchestrator.task.create({ sessionId: "s2", key: "t9", title: "other session" });
    await f.as("developer").task.claim({ sessionId: "s1", key: "t1" });
    const live = await pending;
    expect(live).not.toBe(TIMEOUT);
    expect(live).toMatchObject({ type: "task.claimed", sessionId: "s1", actor: "developer_1" });
  });

  it("starts from now without a lastEventId", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    const stream = await openStream(f.db, {});
    cleanups.push(stream.close);
    const pending = nextEvent(stream.iterator);
    await settle();
    await f.as("orchestrator").session.create({ id: "s2" });
    expect(await pending).toMatchObject({ type: "session.created", sessionId: "s2" });
  });

  it("a subscriber to one session waits quietly past other sessions' events: the server keeps answering", async () => {
    const f = setup();
    const orchestrator = f.as("orchestrator");
    await orchestrator.session.create({ id: "s1" });
    await orchestrator.session.create({ id: "s2" });
    // Count the stream's waits: one that returned at once, forever, would hold the event loop in a
    // busy loop (nothing else would ever run), so past a bound the wait fails the stream instead.
    const tail = eventTail(f.db);
    const wait = tail.waitForNew.bind(tail);
    let waits = 0;
    vi.spyOn(tail, "waitForNew").mockImplementation((afterId, signal) =>
      ++waits > 20 ? Promise.reject(new Error(`busy loop: ${waits} waits`)) : wait(afterId, signal),
    );
    cleanups.push(() => void vi.restoreAllMocks());
    const stream = await openStream(f.db, { sessionId: "s1" });
    cleanups.push(stream.close);
    const pending = nextEvent(stream.iterator);
    await settle();
    await orchestrator.task.create({ sessionId: "s2", key: "t9", title: "other session" });
    await settle();
    expect(await f.as("viewer").events.latestId()).toBeGreaterThan(0);
    await orchestrator.task.create({ sessionId: "s1", key: "t1", title: "mine" });
    expect(await pending).toMatchObject({ type: "task.created", sessionId: "s1" });
    expect(waits).toBeLessThan(5);
  });

  it("refuses an anonymous subscriber", async () => {
    const f = setup();
    expect((await refusal(f.by(null).events.stream({}))).code).toBe("UNAUTHORIZED");
  });

  describe("across processes (a second handle on the same file)", () => {
    function twoHandles(): { server: Db; cli: Db } {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-live-"));
      const file = path.join(dir, "proofgate.db");
      const server = openDatabase(file);
      const cli = openDatabase(file);
      cleanups.push(() => {
        server.$client.close();
        cli.$client.close();
        fs.rmSync(dir, { recursive: true, force: true });
      });
      return { server, cli };
    }

    it("delivers an event written through the other handle, and resumes after the last id with no gap and no repeat", async () => {
      const { server, cli } = twoHandles();
      const cliCaller: Caller = callerFor(cli, { principalId: "operator", principalKind: "operator", role: "admin", label: "developer_1" });
      await cliCaller.session.create({ id: "s1" });
      const n = await callerFor(server, ACTORS.viewer).events.latestId();
      await cliCaller.task.create({ sessionId: "s1", key: "t1", title: "from the CLI" });

      const first = await openStream(server, { lastEventId: n });
      const [created] = await takeEvents(first.iterator, 1);
      expect(created).toMatchObject({ type: "task.created", actor: "developer_1", principalId: "operator" });

      const pending = nextEvent(first.iterator);
      await settle();
      await cliCaller.task.start({ sessionId: "s1", key: "t1" });
      const live = await pending;
      expect(live).not.toBe(TIMEOUT);
      expect(live).toMatchObject({ type: "task.started" });
      const lastSeen = (live as EventRow).id;
      await first.close();

      // While nobody listens, the CLI keeps writing.
      await cliCaller.task.claim({ sessionId: "s1", key: "t1" });
      await cliCaller.log.tokens({ sessionId: "s1", agentType: "developer", tokens: 3 });

      const resumed = await openStream(server, { lastEventId: lastSeen });
      cleanups.push(resumed.close);
      const missed = await takeEvents(resumed.iterator, 2);
      expect(missed.map((e) => e.type)).toEqual(["task.claimed", "tokens.logged"]);
      expect(missed.map((e) => e.id)).toEqual(ids(server, `id > ${lastSeen}`));
      const pendingAgain = nextEvent(resumed.iterator);
      await settle();
      await cliCaller.task.create({ sessionId: "s1", key: "t2", title: "after resume" });
      const later = await pendingAgain;
      expect(later).toMatchObject({ type: "task.created", data: { key: "t2" } });
      // Every event was delivered exactly once across the two subscriptions.
      const delivered = [created!.id, lastSeen, ...missed.map((e) => e.id), (later as EventRow).id];
      expect(delivered).toEqual(ids(server, `id > ${n}`));
    });

    it("delivers an event written while the consumer was busy with the previous one", async () => {
      const { server, cli } = twoHandles();
      const cliCaller = callerFor(cli, { principalId: "operator", principalKind: "operator", role: "admin", label: "developer_1" });
      await cliCaller.session.create({ id: "s1" });
      const n = await callerFor(server, ACTORS.viewer).events.latestId();
      await cliCaller.task.create({ sessionId: "s1", key: "t1", title: "one" });
      const stream = await openStream(server, { lastEventId: n });
      cleanups.push(stream.close);
      await takeEvents(stream.iterator, 1);
      // The consumer is busy; meanwhile another process writes.
      await cliCaller.task.start({ sessionId: "s1", key: "t1" });
      const next = await nextEvent(stream.iterator);
      expect(next).toMatchObject({ type: "task.started" });
    });
  });
});
