/**
 * The remote `events --follow` transport: the text/event-stream parser on streams cut anywhere, and
 * `subscribe` against the real tRPC endpoint over HTTP (Node's fetch, a real socket): events from
 * the last id, a dropped and refused connection resumed with no gap and no duplicate, refusals
 * thrown with their rule, an unreachable server thrown as such.
 */
// flake-risks time: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
// flake-risks port: a port the kernel handed out and closed at once, to show what a client says when nothing listens; nothing here listens on ephemeral ports by chance
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { TRPCClientError } from "@trpc/client";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/db/client";
import { createRequestContext } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import { callerFor, rows } from "@/test/support/api-helpers";
import { createAuth } from "@/server/auth/auth";
import { operatorActor } from "@/server/domain/actors";
import type { EventRow } from "@/server/services/events/list";
import { SseParser, type SubscribeOptions, subscribe } from "./sse";

describe("SseParser", () => {
  // What tRPC's SSE producer writes: each field line, then two line breaks.
  const stream =
    "event: connected\ndata: {}\n\n\n" +
    ": a comment\n\n" +
    'data: {"json":{"id":7}}\nid: 7\n\n\n' +
    "event: ping\ndata: \n\n\n" +
    'data: {"json":{"id":8,"text":"é ✓"}}\nid: 8\n\n\n' +
    'event: serialized-error\ndata: {"json":{"message":"no"}}\n\n\n';
  const expected = [
    { event: "connected", data: "{}", id: null },
    { event: "message", data: '{"json":{"id":7}}', id: "7" },
    { event: "ping", data: "", id: "7" },
    { event: "message", data: '{"json":{"id":8,"text":"é ✓"}}', id: "8" },
    { event: "serialized-error", data: '{"json":{"message":"no"}}', id: "8" },
  ];

  it("gives the same events however the stream is cut into chunks", () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      for (const ending of ["\n", "\r\n", "\r"]) {
        const text = stream.replace(/\n/g, ending);
        const parser = new SseParser();
        const got = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
        expect(got, `cut at ${cut}, ${JSON.stringify(ending)}`).toEqual(expected);
      }
    }
    const parser = new SseParser();
    expect([...stream].flatMap((char) => parser.push(char))).toEqual(expected);
  });

  it("joins data lines, keeps a value without its one leading space, and dispatches nothing without data", () => {
    const parser = new SseParser();
    expect(parser.push("data:a\ndata:  b\nid\n\nevent: lonely\n\ndata\n\n")).toEqual([
      { event: "message", data: "a\n b", id: "" },
      { event: "message", data: "", id: "" },
    ]);
    expect(parser.push("data: half")).toEqual([]);
    expect(parser.push(" line\n\n")).toEqual([{ event: "message", data: "half line", id: "" }]);
  });
});

describe("subscribe to events.stream over HTTP", () => {
  let dir: string;
  let file: string;
  let db: Db;
  let server: http.Server;
  let port: number;
  let token: string;
  let revoked: string;
  let url: string;

  const listen = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  /** Drop every open connection and refuse new ones until `listen()` again. */
  const goDown = () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    return closed;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-sse-"));
    file = path.join(dir, "proofgate.db");
    db = openDatabase(file);
    const auth = createAuth(db, { secret: "x".repeat(32), baseURL: "http://127.0.0.1" });
    const admin = callerFor(db, operatorActor("setup"));
    token = (await admin.admin.createToken({ name: "watcher", role: "viewer" })).token;
    const gone = await admin.admin.createToken({ name: "gone", role: "viewer" });
    await admin.admin.revokeToken({ id: gone.id });
    revoked = gone.token;
    await admin.session.create({ id: "s1" });
    await admin.session.create({ id: "other" });
    server = createHTTPServer({
      router: appRouter,
      basePath: "/api/trpc/",
      createContext: ({ req }) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
        return createRequestContext(new Request(`http://127.0.0.1${req.url}`, { headers }), db, auth);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}/api/trpc`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    // The server notices a closed subscriber on its next tick of the event tail (every 40 ms).
    // flake-risk: cleanup only: lets the server's event tail (every 40 ms) notice the closed subscriber before the database closes
    await new Promise((resolve) => setTimeout(resolve, 200));
    db.$client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Another process (a CLI in local mode) writing to the same file through its own handle. */
  async function writeElsewhere(key: string, sessionId = "s1"): Promise<void> {
    const other = openDatabase(file);
    try {
      await callerFor(other, operatorActor("developer_9")).task.create({ sessionId, key, title: key });
    } finally {
      other.$client.close();
    }
  }

  const latest = () => rows<{ id: number }>(db, "select max(id) as id from events")[0]!.id;
  const idsAfter = (after: number) => rows<{ id: number }>(db, `select id from events where id > ${after} order by id`).map((r) => r.id);

  function follow(options: Partial<SubscribeOptions> = {}) {
    const abort = new AbortController();
    const changes: string[] = [];
    const seen: EventRow[] = [];
    const ids: (string | null)[] = [];
    const run = (async () => {
      for await (const { id, data } of subscribe<EventRow>({
        url,
        path: "events.stream",
        input: {},
        headers: { authorization: `Bearer ${token}` },
        signal: abort.signal,
        retryMs: 20,
        maxRetryMs: 100,
        onConnection: (change) => changes.push(`${change.state}@${change.lastEventId}`),
        ...options,
      })) {
        seen.push(data);
        ids.push(id);
      }
    })();
    return { abort, changes, seen, ids, run };
  }

  /** Waits for `ready`; the deadline only stops a follower that never gets there (no speed claim). */
  async function until(ready: () => boolean, what: string, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      // flake-risk: the poll interval of a loop that awaits a condition
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it("resumes from the last id after dropped and refused connections: no gap, no duplicate", async () => {
    const start = latest();
    await writeElsewhere("before");
    const f = follow({ lastEventId: String(start) });
    try {
      await until(() => f.seen.length === 1, "the event written before subscribing");
      expect(f.seen[0]).toMatchObject({ type: "task.created", sessionId: "s1", actor: "developer_9", data: { key: "before" } });
      expect(f.seen[0]!.at).toBeInstanceOf(Date); // superjson, as tRPC's own client decodes it
      await writeElsewhere("live");
      await writeElsewhere("in-another-session", "other");
      await until(() => f.seen.length === 3, "live events");

      // The server drops the connection and refuses new ones while events keep being written.
      await goDown();
      await writeElsewhere("during-outage-1");
      await writeElsewhere("during-outage-2");
      await until(() => f.changes.length === 1, "the drop to be noticed");
      // flake-risk: a few refused reconnects happen meanwhile; how many does not matter, the events after are awaited
      await new Promise((resolve) => setTimeout(resolve, 150)); // a few refused reconnects
      await listen();
      await until(() => f.seen.length === 5, "the events written during the outage");
      await writeElsewhere("after");
      await until(() => f.seen.length === 6, "an event after the reconnect");

      // A second drop, this time with the listener open at once.
      server.closeAllConnections();
      await writeElsewhere("after-second-drop");
      await until(() => f.seen.length === 7, "the event after the second drop");
      // flake-risk: absence check: room for a repeat or a stray write to show; a slow machine can only make it miss one, never fail
      await new Promise((resolve) => setTimeout(resolve, 100)); // room for a repeat to show
    } finally {
      f.abort.abort();
      await f.run;
    }
    expect(f.seen.map((e) => e.id)).toEqual(idsAfter(start));
    expect(f.ids).toEqual(idsAfter(start).map(String));
    expect(f.seen.map((e) => (e.data as { key: string }).key)).toEqual([
      "before",
      "live",
      "in-another-session",
      "during-outage-1",
      "during-outage-2",
      "after",
      "after-second-drop",
    ]);
    expect(f.changes[0]).toBe(`lost@${f.seen[2]!.id}`);
    expect(f.changes).toContain(`restored@${f.seen[2]!.id}`);
    expect(f.changes).toContain(`lost@${f.seen[5]!.id}`);
  });

  it("throws a refusal with its rule instead of retrying: no token, a revoked token", async () => {
    for (const [headers, rule] of [
      [{}, "auth.required"],
      [{ authorization: `Bearer ${revoked}` }, "auth.token"],
    ] as const) {
      const f = follow({ headers, lastEventId: "0" });
      const error = await f.run.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, rule).toBeInstanceOf(TRPCClientError);
      expect((error as TRPCClientError<never>).data).toMatchObject({ code: "UNAUTHORIZED", rule });
      expect(f.seen).toEqual([]);
    }
  });

  it("throws a bad input's refusal naming the field", async () => {
    const f = follow({ input: { sessionId: "has spaces!" } });
    const error = (await f.run.catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error.data).toMatchObject({ code: "BAD_REQUEST" });
    expect(error.message).toContain("sessionId");
  });

  it("throws at once, with no data, when the server was never reachable", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const f = follow({ url: `http://127.0.0.1:${closedPort}/api/trpc`, lastEventId: "0" });
    const error = (await f.run.catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error.data).toBeUndefined();
    expect(error.message).toContain(`127.0.0.1:${closedPort}`);
    expect(f.changes).toEqual([]);
  });

  it("ends quietly when aborted", async () => {
    const f = follow({ lastEventId: String(latest()) });
    // flake-risk: aborts a follower some time after it started: at any point it must end quietly
    await new Promise((resolve) => setTimeout(resolve, 100));
    f.abort.abort();
    await expect(f.run).resolves.toBeUndefined();
  });
});
