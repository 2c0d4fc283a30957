/**
 * Every procedure of every router, against the callers that must be turned away: nobody signed in
 * (UNAUTHORIZED everywhere), a viewer (reads only), and a forged cross-site cookie request (CSRF
 * refusal on every write, reads still served).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/domain/actors";
import { ACTORS, type Caller, type Fixture, PASSED, callerFor, expectNothingWritten, procedurePaths, setup, tableCounts } from "./test-helpers";

const S = { sessionId: "s1" };
const T = { ...S, key: "t1" };

/** A valid input for every procedure, so a refusal can only come from who is calling. */
const INPUTS: Record<string, unknown> = {
  "session.list": {},
  "session.get": { id: "s1" },
  "session.create": { id: "s2" },
  "session.updateStatus": { ...S, status: "failed" },
  "session.setEnforcement": { ...S, enforcement: "observe", reason: "r" },
  "session.overview": undefined,
  "task.list": S,
  "task.get": T,
  "task.board": S,
  "task.inbox": undefined,
  "task.inboxCount": undefined,
  "task.create": { ...S, key: "t2", title: "x" },
  "task.report": { ...T, title: "renamed" },
  "task.start": { ...S, key: "t3" },
  "task.claim": { ...S, key: "t3" },
  "task.verify": { ...T, proofpack: PASSED },
  "task.block": { ...T, failures: ["x"] },
  "task.complete": T,
  "task.requestReset": { ...T, reason: "r" },
  "task.approveReset": { ...T, reason: "r" },
  "criteria.list": S,
  "criteria.save": { ...S, criteria: [{ criterion: "new" }] },
  "criteria.update": { ...S, criterion: "c1", status: "met" },
  "criteria.verify": { ...S, criterion: "c1", status: "met" },
  "criteria.setRequired": { ...S, criterion: "c1", required: false },
  "completion.check": S,
  "completion.list": S,
  "completion.preview": S,
  "log.list": S,
  "log.interaction": { ...S, agentType: "a", content: "c" },
  "log.reasoning": { ...S, agentType: "a", phase: "understanding", content: "c" },
  "log.getReasoning": S,
  "log.reasoningTimeline": S,
  "log.mandatoryPhases": { ...S, groupId: "g", agentType: "a" },
  "log.event": { ...S, subtype: "x" },
  "log.events": S,
  "log.tokens": { ...S, agentType: "a", tokens: 1 },
  "log.tokenSummary": S,
  "log.tokensOverTime": S,
  "log.batch": { ...S, rows: [{ kind: "tokens", agentType: "a", tokens: 1 }] },
  "log.saveState": { ...S, stateType: "pm", data: {} },
  "log.state": { ...S, stateType: "pm" },
  "log.saveSkillOutput": { ...S, skillName: "s", data: {} },
  "log.skillOutput": { ...S, skillName: "s" },
  "log.decision": { ...S, decisionType: "d", data: {} },
  "log.savePlan": { ...S, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "n" }] },
  "log.planProgress": { ...S, phase: 1, status: "completed" },
  "log.plan": S,
  "log.saveContextPackage": { ...S, packageType: "research", filePath: "f", producerAgent: "a", consumers: ["b"], summary: "s" },
  "log.contextPackages": { ...S, groupId: "g", agentType: "b" },
  "log.markContextConsumed": { packageId: 1, agentType: "b" },
  "events.list": {},
  "events.latestId": undefined,
  "events.stream": { lastEventId: 0 },
  "admin.users": undefined,
  "admin.createUser": { email: "x@example.com", password: "correct horse battery staple", role: "lead" },
  "admin.setUserRole": { userId: "u", role: "lead" },
  "admin.tokens": undefined,
  "admin.createToken": { name: "t", role: "agent" },
  "admin.revokeToken": { id: 1 },
  "admin.configuration": undefined,
  "admin.modelConfig": undefined,
  "admin.workflow": undefined,
};

/** Call a procedure by its dotted path. */
function call(caller: Caller, path: string): Promise<unknown> {
  const [router, procedure] = path.split(".") as [string, string];
  const fn = (caller as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>)[router]![procedure]!;
  return fn(INPUTS[path]);
}

/** A session with a claimed task, a blocked one, a criterion, a plan, a context package and a token. */
async function world(): Promise<Fixture> {
  const f = setup();
  await f.as("orchestrator").session.create({ id: "s1" });
  await f.as("orchestrator").task.create({ ...T, title: "t1" });
  await f.as("orchestrator").task.create({ ...S, key: "t3", title: "t3" });
  await f.as("developer").task.claim(T);
  await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "c1" }] });
  await f.as("orchestrator").log.savePlan(INPUTS["log.savePlan"] as never);
  await f.as("orchestrator").log.saveContextPackage(INPUTS["log.saveContextPackage"] as never);
  await f.as("admin").admin.createToken({ name: "existing", role: "agent" });
  return f;
}

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
  expect(Object.keys(INPUTS).sort()).toEqual(paths.map(([path]) => path).sort());
});

describe("nobody signed in", () => {
  it.each(allPaths)("%s (%s) is UNAUTHORIZED and writes nothing", async (path) => {
    const r = await expectNothingWritten(f.db, () => call(f.by(null), path));
    expect(r.code).toBe("UNAUTHORIZED");
  });
});

describe("a viewer", () => {
  it.each(paths.filter(([path, type]) => type === "mutation" || path.startsWith("admin.")))("is refused %s FORBIDDEN, writing nothing", async (path) => {
    const r = await expectNothingWritten(f.db, () => call(f.as("viewer"), path));
    expect(r.code).toBe("FORBIDDEN");
  });

  it.each(paths.filter(([path, type]) => type === "query" && !path.startsWith("admin.")))("may read %s, writing nothing", async (path) => {
    const before = tableCounts(f.db);
    await call(f.as("viewer"), path);
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
    const r = await expectNothingWritten(f.db, () => call(callerFor(f.db, admin, { via: "cookie", sameOrigin: false }), path));
    expect(r.code).toBe("FORBIDDEN");
    expect(r.message).toMatch(/^csrf:/);
  });

  it.each(paths.filter(([, type]) => type === "query"))("is still served %s", async (path) => {
    const before = tableCounts(f.db);
    await call(callerFor(f.db, admin, { via: "cookie", sameOrigin: false }), path);
    expect(tableCounts(f.db)).toEqual(before);
  });
});
