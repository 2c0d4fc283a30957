import { describe, expect, it } from "vitest";
import {
  type Fixture,
  columnsContaining,
  count,
  expectBadRequest,
  expectForbidden,
  expectNotFound,
  expectNothingWritten,
  rows,
  setup,
} from "@/test/support/api-helpers";

const S = { sessionId: "s1" };
// Built from pieces so no whole secret-shaped literal sits in the source.
const KEY = "sk-" + "abcdefghijklmnopqrstuvwx";
const SECRET = `api_key=${KEY}`;

async function withSession(): Promise<Fixture> {
  const f = setup();
  await f.as("orchestrator").session.create({ id: "s1" });
  return f;
}

/** No stored text anywhere in the database contains the plaintext secret. */
function expectSecretNowhere(f: Fixture): void {
  expect(columnsContaining(f.db, KEY)).toEqual([]);
}

describe("log writes and reads", () => {
  it("logs an interaction with its secret redacted, and lists it", async () => {
    const f = await withSession();
    const row = await f
      .as("developer")
      .log.interaction({ ...S, agentType: "developer", agentId: "developer_1", content: `ran deploy with ${SECRET}`, iteration: 1, groupId: "A" });
    expect(row).toMatchObject({ logType: "interaction", agentType: "developer", redacted: true, groupId: "A" });
    expect(row.content).not.toContain(KEY);
    expect(row.content).toContain("[REDACTED:");
    const page = await f.as("viewer").log.list({ ...S, logType: "interaction" });
    expect(page.items.map((i) => [i.id, i.redacted])).toEqual([[row.id, true]]);
    expect(page.items[0]!.content).not.toContain(KEY);
    expect(rows(f.db, "select type, entity, entity_id, actor from events where type = 'logs.appended'")).toEqual([
      { type: "logs.appended", entity: "log", entity_id: String(row.id), actor: "developer_1" },
    ]);
    expectSecretNowhere(f);
  });

  it("saves reasoning and reads it back by phase, as a timeline and as the mandatory-phase check", async () => {
    const f = await withSession();
    await f.as("developer").log.reasoning({
      ...S,
      agentType: "developer",
      phase: "understanding",
      content: "The login form needs validation",
      groupId: "A",
      confidence: "high",
      references: ["src/login.tsx"],
    });
    await f.as("developer").log.reasoning({ ...S, agentType: "developer", phase: "approach", content: `use ${SECRET} for the API`, groupId: "A" });
    const reasoning = await f.as("viewer").log.getReasoning({ ...S, groupId: "A" });
    expect(reasoning.map((r) => [r.reasoningPhase, r.redacted])).toEqual([
      ["approach", true],
      ["understanding", false],
    ]);
    expect(reasoning[0]!.content).not.toContain(KEY);
    const timeline = await f.as("viewer").log.reasoningTimeline({ ...S, groupId: "A" });
    expect(timeline.format === "json" && timeline.entries.map((e) => e.reasoningPhase)).toEqual(["understanding", "approach"]);
    const markdown = await f.as("viewer").log.reasoningTimeline({ ...S, format: "markdown" });
    expect(markdown.format === "markdown" && markdown.text).toContain("Reasoning Timeline");
    expect(await f.as("viewer").log.mandatoryPhases({ ...S, groupId: "A", agentType: "developer" })).toEqual({
      complete: false,
      missing: ["completion"],
      documented: ["understanding", "approach"],
    });
    expectSecretNowhere(f);
  });

  it("stores an event once for a repeated idempotency key, redacting its payload", async () => {
    const f = await withSession();
    const input = { ...S, subtype: "pm_bazinga", groupId: "global", idempotencyKey: "bazinga-1", payload: { verdict: "BAZINGA", note: SECRET } };
    const first = await f.as("orchestrator").log.event(input);
    const second = await f.as("orchestrator").log.event(input);
    expect(first.created).toBe(true);
    expect(second).toEqual({ row: first.row, created: false });
    expect(count(f.db, "orchestration_logs", "log_type = 'event'")).toBe(1);
    expect(count(f.db, "events", "type = 'logs.appended'")).toBe(1);
    const events = await f.as("viewer").log.events({ ...S, subtype: "pm_bazinga" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventSubtype: "pm_bazinga", content: "Event: pm_bazinga", redacted: true, eventPayload: { verdict: "BAZINGA" } });
    expect(JSON.stringify(events[0]!.eventPayload)).not.toContain(KEY);
    expectSecretNowhere(f);
  });

  it("logs tokens and summarises them by agent type and over time", async () => {
    const f = await withSession();
    const row = await f.as("developer").log.tokens({ ...S, agentType: "developer", tokens: 1200, model: "sonnet" });
    await f.as("verifier").log.tokens({ ...S, agentType: "qa", tokens: 300 });
    expect(row).toMatchObject({ agentType: "developer", tokensEstimated: 1200, model: "sonnet" });
    expect(await f.as("viewer").log.tokenSummary(S)).toEqual({
      by: "agent_type",
      groups: [
        { key: "developer", tokens: 1200, entries: 1 },
        { key: "qa", tokens: 300, entries: 1 },
      ],
      total: 1500,
    });
    const buckets = await f.as("viewer").log.tokensOverTime({ ...S, bucket: "day" });
    expect(buckets.at(-1)).toMatchObject({ cumulative: 1500 });
    expect(count(f.db, "events", "type = 'tokens.logged'")).toBe(2);
  });

  it("ingests a batch of 500 rows in one call with one events row, redacted and deduplicated", async () => {
    const f = await withSession();
    const batch = Array.from({ length: 500 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return { kind: "interaction" as const, agentType: "developer", content: i === 0 ? `leaked ${SECRET}` : `step ${i}` };
        case 1:
          return { kind: "reasoning" as const, agentType: "developer", phase: "decisions" as const, content: `decision ${i}` };
        case 2:
          return { kind: "event" as const, subtype: "tl_review", idempotencyKey: i < 10 ? "same-key" : `key-${i}`, payload: { i } };
        default:
          return { kind: "tokens" as const, agentType: "developer", tokens: 10 };
      }
    });
    const eventsBefore = count(f.db, "events");
    const result = await f.as("orchestrator").log.batch({ ...S, rows: batch });
    expect(result.ids).toHaveLength(500);
    // Rows 2 and 6 carry the same idempotency key: the second stores nothing new.
    expect(result.ids[6]).toBe(result.ids[2]);
    expect(result.logs).toMatchObject({ count: 374, duplicates: 1, redacted: 1 });
    expect(result.tokens).toMatchObject({ count: 125, total: 1250 });
    expect(count(f.db, "orchestration_logs")).toBe(374);
    expect(count(f.db, "token_usage")).toBe(125);
    expect(count(f.db, "events")).toBe(eventsBefore + 1);
    const [event] = rows<{ type: string; data: string }>(f.db, "select type, data from events order by id desc limit 1");
    expect(event?.type).toBe("logs.appended");
    expect(JSON.parse(event!.data)).toMatchObject({ batch: true, count: 374, tokens: { count: 125 } });
    expectSecretNowhere(f);
  });

  it("refuses a batch with one bad row entirely and writes nothing", async () => {
    const f = await withSession();
    const batch = Array.from({ length: 500 }, (_, i) => ({ kind: "interaction" as const, agentType: "developer", content: i === 417 ? "   " : `step ${i}` }));
    await expectNothingWritten(f.db, () => f.as("orchestrator").log.batch({ ...S, rows: batch }));
  });

  it("refuses a batch with one blank row BAD_REQUEST naming rows[417].content", async () => {
    const f = await withSession();
    const batch = Array.from({ length: 500 }, (_, i) => ({ kind: "interaction" as const, agentType: "developer", content: i === 417 ? "   " : `step ${i}` }));
    await expectBadRequest(f.as("orchestrator").log.batch({ ...S, rows: batch }), "rows[417].content");
  });

  it("saves state snapshots and returns the newest, redacted", async () => {
    const f = await withSession();
    await f.as("orchestrator").log.saveState({ ...S, stateType: "pm", data: { criteria: ["a"], mode: "simple" } });
    const row = await f.as("orchestrator").log.saveState({ ...S, stateType: "pm", data: JSON.stringify({ mode: "parallel", env: SECRET }) });
    expect(row).toMatchObject({ stateType: "pm", groupId: "global" });
    const state = await f.as("viewer").log.state({ ...S, stateType: "pm" });
    expect(state).toMatchObject({ id: row.id, data: { mode: "parallel" } });
    expect(JSON.stringify(state!.data)).not.toContain(KEY);
    expect(await f.as("viewer").log.state({ ...S, stateType: "investigation" })).toBeNull();
    expect(count(f.db, "state_snapshots")).toBe(2);
    expectSecretNowhere(f);
  });

  it("saves a skill output and returns the latest, redacted", async () => {
    const f = await withSession();
    const row = await f.as("verifier").log.saveSkillOutput({ ...S, skillName: "security-scan", agentType: "qa", data: { findings: 0, token: KEY } });
    const output = await f.as("viewer").log.skillOutput({ ...S, skillName: "security-scan" });
    expect(output).toMatchObject({ id: row.id, skillName: "security-scan", agentType: "qa", data: { findings: 0 } });
    expect(JSON.stringify(output!.data)).not.toContain(KEY);
    expect(await f.as("viewer").log.skillOutput({ ...S, skillName: "coverage" })).toBeNull();
    expectSecretNowhere(f);
  });

  it("records a decision", async () => {
    const f = await withSession();
    const row = await f.as("orchestrator").log.decision({ ...S, decisionType: "spawn_agent", data: { agent: "developer", count: 2 }, iteration: 1 });
    expect(row).toMatchObject({ decisionType: "spawn_agent", iteration: 1 });
    expect(rows(f.db, "select decision_type from decisions")).toEqual([{ decision_type: "spawn_agent" }]);
    expect(count(f.db, "events", "type = 'decision.saved'")).toBe(1);
  });

  it("saves a development plan, updates a phase's progress and reads it back", async () => {
    const f = await withSession();
    const plan = await f.as("orchestrator").log.savePlan({
      ...S,
      originalPrompt: "Build the login flow",
      planText: `Phase 1 then 2 (${SECRET})`,
      phases: [
        { phase: 1, name: "Form" },
        { phase: 2, name: "Validation", description: "kept" },
      ],
    });
    expect(plan).toMatchObject({ totalPhases: 2, currentPhase: null });
    const progressed = await f.as("developer").log.planProgress({ ...S, phase: 1, status: "completed" });
    expect(progressed.currentPhase).toBe(1);
    const read = await f.as("viewer").log.plan(S);
    expect(read?.phases).toEqual([
      { phase: 1, name: "Form", status: "completed", completed_at: expect.any(String), progress_percent: 100 },
      { phase: 2, name: "Validation", status: "pending", description: "kept" },
    ]);
    expect(read?.planText).not.toContain(KEY);
    await expectNotFound(f.as("developer").log.planProgress({ ...S, phase: 9, status: "completed" }));
    expectSecretNowhere(f);
  });

  it("saves a context package, routes it to its consumer and marks it consumed", async () => {
    const f = await withSession();
    const { package: pkg, consumers } = await f.as("developer").log.saveContextPackage({
      ...S,
      groupId: "A",
      packageType: "research",
      filePath: "research/auth.md",
      producerAgent: "Developer",
      consumers: ["QA", "tech_lead"],
      priority: "high",
      summary: "Auth research\nfor the login flow",
    });
    expect(pkg).toMatchObject({ groupId: "A", scope: "group", producerAgent: "developer", summary: "Auth research for the login flow", version: 1 });
    expect(consumers.map((c) => [c.agentType, c.consumedAt])).toEqual([
      ["qa", null],
      ["tech_lead", null],
    ]);
    expect((await f.as("viewer").log.contextPackages({ ...S, groupId: "A", agentType: "qa" })).map((p) => [p.id, p.pending])).toEqual([[pkg.id, true]]);

    const consumed = await f.as("verifier").log.markContextConsumed({ packageId: pkg.id, agentType: "qa" });
    expect(consumed.consumedAt).toBeInstanceOf(Date);
    expect(await f.as("viewer").log.contextPackages({ ...S, groupId: "A", agentType: "qa" })).toEqual([]);
    const all = await f.as("viewer").log.contextPackages({ ...S, groupId: "A", agentType: "qa", includeConsumed: true });
    expect(all.map((p) => [p.id, p.pending])).toEqual([[pkg.id, false]]);
    expect(count(f.db, "events", "type = 'context_package.consumed'")).toBe(1);
    await expectNotFound(f.as("verifier").log.markContextConsumed({ packageId: 999, agentType: "qa" }));
    const r = await expectNothingWritten(f.db, () =>
      f
        .as("developer")
        .log.saveContextPackage({ ...S, packageType: "research", filePath: "x.md", producerAgent: "dev", consumers: ["qa"], summary: "s", supersedesId: 999 }),
    );
    expect(r.code).toBe("BAD_REQUEST");
    expect(r.message).toContain("supersedesId:");
  });
});

describe("log refusals", () => {
  it("refuses a viewer every log write (log.write_role), writing nothing", async () => {
    const f = await withSession();
    const viewer = f.as("viewer");
    const writes = [
      () => viewer.log.interaction({ ...S, agentType: "x", content: "y" }),
      () => viewer.log.reasoning({ ...S, agentType: "x", phase: "understanding", content: "y" }),
      () => viewer.log.event({ ...S, subtype: "x" }),
      () => viewer.log.tokens({ ...S, agentType: "x", tokens: 1 }),
      () => viewer.log.batch({ ...S, rows: [{ kind: "tokens", agentType: "x", tokens: 1 }] }),
      () => viewer.log.saveState({ ...S, stateType: "pm", data: {} }),
      () => viewer.log.saveSkillOutput({ ...S, skillName: "x", data: {} }),
      () => viewer.log.decision({ ...S, decisionType: "x", data: {} }),
      () => viewer.log.savePlan({ ...S, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "n" }] }),
      () => viewer.log.planProgress({ ...S, phase: 1, status: "completed" }),
      () => viewer.log.saveContextPackage({ ...S, packageType: "research", filePath: "x", producerAgent: "x", consumers: ["y"], summary: "s" }),
      () => viewer.log.markContextConsumed({ packageId: 1, agentType: "x" }),
    ];
    for (const write of writes) {
      const r = await expectNothingWritten(f.db, write);
      expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "log.write_role" } });
    }
  });

  it("answers NOT_FOUND for an unknown session on writes and reads", async () => {
    const f = await withSession();
    const N = { sessionId: "nope" };
    await expectNotFound(f.as("developer").log.interaction({ ...N, agentType: "x", content: "y" }));
    await expectNotFound(f.as("developer").log.batch({ ...N, rows: [{ kind: "tokens", agentType: "x", tokens: 1 }] }));
    await expectNotFound(f.as("viewer").log.list(N));
    await expectNotFound(f.as("viewer").log.getReasoning(N));
    await expectNotFound(f.as("viewer").log.tokenSummary(N));
    await expectNotFound(f.as("viewer").log.state({ ...N, stateType: "pm" }));
    await expectNotFound(f.as("viewer").log.plan(N));
  });

  it("refuses malformed input and writes nothing", async () => {
    const f = await withSession();
    await expectNothingWritten(f.db, () => f.as("developer").log.interaction({ ...S, agentType: "x", content: "   " }));
    await expectNothingWritten(f.db, () => f.as("developer").log.tokens({ ...S, agentType: "x", tokens: -1 }));
    await expectNothingWritten(f.db, () => f.as("developer").log.saveState({ ...S, stateType: "pm", data: "{not json" }));
    await expectNothingWritten(f.db, () =>
      f.as("developer").log.savePlan({
        ...S,
        originalPrompt: "p",
        planText: "t",
        phases: [
          { phase: 1, name: "a" },
          { phase: 1, name: "b" },
        ],
      }),
    );
  });

  it("still denies access to an anonymous caller before any of this", async () => {
    const f = await withSession();
    await expectForbidden(f.as("viewer").log.event({ ...S, subtype: "x" }), "log.write_role");
    await expect(f.by(null).log.list(S)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});
