/**
 * Every procedure of every router, against the callers that must be turned away: nobody signed in
 * (UNAUTHORIZED everywhere), a viewer (reads only), and a forged cross-site cookie request (CSRF
 * refusal on every write, reads still served). Each call takes its valid input from
 * procedure-inputs.ts, so a refusal can only come from who is calling.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/domain/actors";
import { VALID_INPUTS, callPath, world } from "@/test/support/procedure-inputs";
import { ACTORS, type Fixture, callerFor, expectNothingWritten, procedurePaths, tableCounts } from "@/test/support/api-helpers";

/** The routers this file knows inputs for; routers added later are still swept for UNAUTHORIZED. */
const OWNED = ["session", "task", "criteria", "completion", "log", "events", "admin"];
/** Deliberately callable without signing in (first-run setup); covered in setup.test.ts. */
const PUBLIC = ["setup.status", "setup.createFirstAdmin"];
const allPaths = Object.entries(procedurePaths()).filter(([path]) => !PUBLIC.includes(path));
const paths = allPaths.filter(([path]) => OWNED.includes(path.split(".")[0]!));
// Every test here is a refusal or a read, so they share one world (and prove they leave it unchanged).
let f: Fixture;
beforeAll(async () => {
  f = await world();
});

it("has a valid input for every procedure of the session, task, criteria, completion, log, events and admin routers", () => {
  expect(paths.map(([path]) => path).filter((path) => !Object.hasOwn(VALID_INPUTS, path))).toEqual([]);
});

describe("nobody signed in", () => {
  it.each(allPaths)("%s (%s) is UNAUTHORIZED and writes nothing", async (path) => {
    const r = await expectNothingWritten(f.db, () => callPath(f.by(null), path));
    expect(r.code).toBe("UNAUTHORIZED");
  });
});

describe("a viewer", () => {
  it.each(paths.filter(([path, type]) => type === "mutation" || path.startsWith("admin.")))("is refused %s FORBIDDEN, writing nothing", async (path) => {
    const r = await expectNothingWritten(f.db, () => callPath(f.as("viewer"), path));
    expect(r.code).toBe("FORBIDDEN");
  });

  it.each(paths.filter(([path, type]) => type === "query" && !path.startsWith("admin.")))("may read %s, writing nothing", async (path) => {
    const before = tableCounts(f.db);
    await callPath(f.as("viewer"), path);
    expect(tableCounts(f.db)).toEqual(before);
  });

  it("may subscribe to events.stream", async () => {
    const abort = new AbortController();
    const stream = (await callerFor(f.db, ACTORS.viewer, {}, abort.signal).events.stream({ lastEventId: 0 })) as AsyncIterable<unknown>;
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    abort.abort();
    await iterator.return?.(undefined);
  });
});

describe("a cross-site request carrying an admin's cookie", () => {
  const admin: Actor = { principalId: "user:admin", principalKind: "user", role: "admin", label: "admin@example.com" };

  it.each(paths.filter(([, type]) => type === "mutation"))("is refused %s FORBIDDEN csrf, writing nothing", async (path) => {
    const r = await expectNothingWritten(f.db, () => callPath(callerFor(f.db, admin, { via: "cookie", sameOrigin: false }), path));
    expect(r.code).toBe("FORBIDDEN");
    expect(r.message).toMatch(/^csrf:/);
  });

  it.each(paths.filter(([, type]) => type === "query"))("is still served %s", async (path) => {
    const before = tableCounts(f.db);
    await callPath(callerFor(f.db, admin, { via: "cookie", sameOrigin: false }), path);
    expect(tableCounts(f.db)).toEqual(before);
  });
});
