import { queryAll } from "@/db/query";
import { describe, expect, it } from "vitest";
import { orchestrationLogs, tokenUsage } from "@/db/schema";
import { ValidationError } from "@/server/domain/errors";
import { logInteraction } from "./log-interaction";
import { logTokens } from "./log-tokens";
import { saveEvent } from "./save-event";
import { saveReasoning } from "./save-reasoning";
import { SESSION, T0, eventsOfType, rowCount, setup } from "@/test/support/log-helpers";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

async function expectValidation(run: () => unknown, field: string, rule = "log.invalid_input"): Promise<void> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field, rule });
    return;
  }
  throw new Error(`expected a ValidationError on ${field}`);
}

describeEngines("log log-writes", (engine) => {
  describe("logInteraction", () => {
    it("stores the interaction and appends one logs.appended event naming it", async () => {
      const { db, as } = await setup(await freshLedger(engine));
      const row = await logInteraction(as("agent", "developer_1"), {
        sessionId: SESSION,
        agentType: "developer",
        content: "Implemented the login form",
        iteration: 5,
        agentId: "developer_1",
        groupId: "group_a",
      });
      expect(await queryAll(db.select().from(orchestrationLogs))).toEqual([row]);
      expect(row).toMatchObject({
        sessionId: SESSION,
        logType: "interaction",
        agentType: "developer",
        agentId: "developer_1",
        iteration: 5,
        groupId: "group_a",
        content: "Implemented the login form",
        redacted: false,
        reasoningPhase: null,
      });
      expect(row.timestamp.getTime()).toBe(T0);
      const appended = await eventsOfType(db, "logs.appended");
      expect(appended).toHaveLength(1);
      expect(appended[0]).toMatchObject({
        sessionId: SESSION,
        entity: "log",
        entityId: String(row.id),
        actor: "developer_1",
        role: "agent",
        data: { count: 1, firstId: row.id, lastId: row.id, logType: "interaction" },
      });
    });

    it("refuses empty content, content over 1 MB, and unknown fields, writing nothing", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await expectValidation(async () => logInteraction(admin, { sessionId: SESSION, agentType: "pm", content: "   " }), "content");
      await expectValidation(
        async () => logInteraction(admin, { sessionId: SESSION, agentType: "pm", content: "a".repeat(1_048_577) }),
        "content",
        "log.content_too_large",
      );
      // 600,000 characters, but 1.2 MB of UTF-8: the limit is on bytes.
      await expectValidation(
        async () => logInteraction(admin, { sessionId: SESSION, agentType: "pm", content: "é".repeat(600_000) }),
        "content",
        "log.content_too_large",
      );
      await expectValidation(async () => logInteraction(admin, { sessionId: SESSION, agentType: "pm", content: "x", extra: 1 } as never), "extra");
      expect(await rowCount(db, orchestrationLogs)).toBe(0);
    });

    it("accepts content of exactly 1 MB", async () => {
      const { admin } = await setup(await freshLedger(engine));
      expect((await logInteraction(admin, { sessionId: SESSION, agentType: "pm", content: "a".repeat(1_048_576) })).content).toHaveLength(1_048_576);
    });
  });

  describe("saveReasoning", () => {
    it("stores phase, confidence, references and the group (global by default)", async () => {
      const { db, as } = await setup(await freshLedger(engine));
      const ctx = as("agent", "developer_1");
      const grouped = await saveReasoning(ctx, {
        sessionId: SESSION,
        groupId: "group_a",
        agentType: "developer",
        phase: "understanding",
        content: "Analyzing OAuth2 requirements",
        confidence: "high",
        references: ["src/auth/oauth.ts", "docs/spec.md"],
        iteration: 2,
        agentId: "developer_1",
      });
      const global = await saveReasoning(ctx, { sessionId: SESSION, agentType: "pm", phase: "approach", content: "Split into two groups" });
      expect(grouped).toMatchObject({
        logType: "reasoning",
        reasoningPhase: "understanding",
        confidenceLevel: "high",
        referencesJson: ["src/auth/oauth.ts", "docs/spec.md"],
        groupId: "group_a",
        iteration: 2,
        redacted: false,
      });
      expect(global).toMatchObject({ groupId: "global", confidenceLevel: null, referencesJson: null });
      expect((await eventsOfType(db, "logs.appended")).map((e) => e.entityId)).toEqual([String(grouped.id), String(global.id)]);
    });

    it("refuses a phase outside the seven and a confidence outside high|medium|low", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await expectValidation(async () => saveReasoning(admin, { sessionId: SESSION, agentType: "qa", phase: "thinking" as never, content: "x" }), "phase");
      await expectValidation(
        async () => saveReasoning(admin, { sessionId: SESSION, agentType: "qa", phase: "risks", confidence: "certain" as never, content: "x" }),
        "confidence",
      );
      expect(await rowCount(db, orchestrationLogs)).toBe(0);
    });
  });

  describe("saveEvent", () => {
    it("stores subtype, payload and group, with BAZINGA's default content", async () => {
      const { admin } = await setup(await freshLedger(engine));
      const { row, created } = await saveEvent(admin, { sessionId: SESSION, subtype: "pm_bazinga", payload: { summary: "All criteria met", iteration: 5 } });
      expect(created).toBe(true);
      expect(row).toMatchObject({
        logType: "event",
        eventSubtype: "pm_bazinga",
        groupId: "global",
        agentType: "system",
        content: "Event: pm_bazinga",
        idempotencyKey: null,
      });
      expect(JSON.parse(row.eventPayload!)).toEqual({ summary: "All criteria met", iteration: 5 });
    });

    it("accepts the payload as JSON text, as BAZINGA's command line passes it", async () => {
      const { admin } = await setup(await freshLedger(engine));
      const { row } = await saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", payload: '{"verdict": "ACCEPT", "reason": "checked"}' });
      expect(JSON.parse(row.eventPayload!)).toEqual({ verdict: "ACCEPT", reason: "checked" });
      await expectValidation(
        async () => saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", payload: "{not json" }),
        "payload",
        "log.invalid_json",
      );
    });

    it("stores nothing new for a repeated idempotency key and returns the first row", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const first = await saveEvent(admin, {
        sessionId: SESSION,
        subtype: "validator_verdict",
        groupId: "group_a",
        idempotencyKey: "verdict-1",
        payload: { verdict: "ACCEPT" },
      });
      const repeat = await saveEvent(admin, {
        sessionId: SESSION,
        subtype: "validator_verdict",
        groupId: "group_a",
        idempotencyKey: "verdict-1",
        payload: { verdict: "REJECT" },
      });
      expect(repeat).toEqual({ row: first.row, created: false });
      expect(await rowCount(db, orchestrationLogs)).toBe(1);
      expect(await eventsOfType(db, "logs.appended")).toHaveLength(1);
      // The key is scoped by subtype and group: these are new events.
      expect((await saveEvent(admin, { sessionId: SESSION, subtype: "pm_bazinga", groupId: "group_a", idempotencyKey: "verdict-1" })).created).toBe(true);
      expect((await saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", groupId: "group_b", idempotencyKey: "verdict-1" })).created).toBe(
        true,
      );
      // Without a key every call stores a row.
      await saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", groupId: "group_a" });
      await saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", groupId: "group_a" });
      expect(await rowCount(db, orchestrationLogs)).toBe(5);
    });
  });

  describe("logTokens", () => {
    it("stores tokens with agent and model and appends tokens.logged", async () => {
      const { db, as } = await setup(await freshLedger(engine));
      const row = await logTokens(as("orchestrator", "orchestrator"), {
        sessionId: SESSION,
        agentType: "developer",
        tokens: 15000,
        agentId: "developer_1",
        model: "sonnet",
      });
      expect(await queryAll(db.select().from(tokenUsage))).toEqual([row]);
      expect(row).toMatchObject({ agentType: "developer", agentId: "developer_1", tokensEstimated: 15000, model: "sonnet" });
      expect(await eventsOfType(db, "tokens.logged")).toMatchObject([{ entity: "token_usage", entityId: String(row.id), data: { count: 1, tokens: 15000 } }]);
    });

    it("accepts zero and refuses negative or fractional counts", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      expect((await logTokens(admin, { sessionId: SESSION, agentType: "pm", tokens: 0 })).tokensEstimated).toBe(0);
      await expectValidation(async () => logTokens(admin, { sessionId: SESSION, agentType: "pm", tokens: -1 }), "tokens");
      await expectValidation(async () => logTokens(admin, { sessionId: SESSION, agentType: "pm", tokens: 1.5 }), "tokens");
      expect(await rowCount(db, tokenUsage)).toBe(1);
    });
  });
});
