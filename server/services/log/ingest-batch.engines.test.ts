import { queryAll } from "@/db/query";
import { describe, expect, it } from "vitest";
import { events, orchestrationLogs, tokenUsage } from "@/db/schema";
import { ValidationError } from "@/server/domain/errors";
import { ingestBatch } from "./ingest-batch";
import { listLogs } from "./list-logs";
import { saveEvent } from "./save-event";
import type { IngestBatchInput } from "./schemas";
import { SESSION, eventsOfType, rowCount, setup } from "@/test/support/log-helpers";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

type Row = IngestBatchInput["rows"][number];

const interaction = (i: number): Row => ({ kind: "interaction", agentType: "developer", agentId: "developer_1", content: `step ${i}`, iteration: 1 });

describeEngines("log ingest-batch", (engine) => {
  describe("ingestBatch", () => {
    it("writes every kind of row in order and ONE events row for the batch", async () => {
      const { db, as } = await setup(await freshLedger(engine));
      const result = await ingestBatch(as("orchestrator", "orchestrator"), {
        sessionId: SESSION,
        rows: [
          { kind: "interaction", agentType: "pm", content: "Planning two groups", groupId: "group_a" },
          {
            kind: "reasoning",
            agentType: "developer",
            phase: "understanding",
            content: "Reading the spec",
            confidence: "medium",
            references: ["docs/spec.md"],
          },
          { kind: "event", subtype: "pm_bazinga", payload: { summary: "done" }, idempotencyKey: "bz-1" },
          { kind: "tokens", agentType: "pm", tokens: 1200, model: "opus" },
          { kind: "tokens", agentType: "developer", tokens: 800, agentId: "developer_1" },
        ],
      });
      const logs = (await listLogs(db, { sessionId: SESSION, order: "asc" })).items;
      expect(logs.map((l) => [l.logType, l.agentType])).toEqual([
        ["interaction", "pm"],
        ["reasoning", "developer"],
        ["event", "system"],
      ]);
      expect(logs[1]).toMatchObject({ reasoningPhase: "understanding", confidenceLevel: "medium", referencesJson: ["docs/spec.md"], groupId: "global" });
      expect(logs[2]).toMatchObject({ eventSubtype: "pm_bazinga", eventPayload: { summary: "done" }, idempotencyKey: "bz-1" });
      const tokens = await queryAll(db.select().from(tokenUsage).orderBy(tokenUsage.id));
      expect(tokens.map((t) => [t.agentType, t.tokensEstimated, t.model, t.agentId])).toEqual([
        ["pm", 1200, "opus", null],
        ["developer", 800, null, "developer_1"],
      ]);
      expect(result.ids).toEqual([logs[0]!.id, logs[1]!.id, logs[2]!.id, tokens[0]!.id, tokens[1]!.id]);
      expect(result.logs).toEqual({ count: 3, firstId: logs[0]!.id, lastId: logs[2]!.id, redacted: 0, duplicates: 0 });
      expect(result.tokens).toEqual({ count: 2, firstId: tokens[0]!.id, lastId: tokens[1]!.id, total: 2000 });
      const batchEvents = (await queryAll(db.select().from(events))).filter((e) => e.type !== "session.created");
      expect(batchEvents).toHaveLength(1);
      expect(batchEvents[0]).toMatchObject({
        type: "logs.appended",
        entity: "session",
        entityId: SESSION,
        actor: "orchestrator",
        data: { count: 3, firstId: logs[0]!.id, lastId: logs[2]!.id, tokens: { count: 2, total: 2000 } },
      });
    });

    it("a tokens-only batch appends one tokens.logged event", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await ingestBatch(admin, {
        sessionId: SESSION,
        rows: [
          { kind: "tokens", agentType: "pm", tokens: 5 },
          { kind: "tokens", agentType: "qa", tokens: 7 },
        ],
      });
      expect(await eventsOfType(db, "logs.appended")).toHaveLength(0);
      expect(await eventsOfType(db, "tokens.logged")).toMatchObject([{ data: { count: 2, total: 12 } }]);
    });

    it("writes a batch of 1000 rows in one call", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const result = await ingestBatch(admin, { sessionId: SESSION, rows: Array.from({ length: 1000 }, (_, i) => interaction(i)) });
      expect(result.logs.count).toBe(1000);
      expect(await rowCount(db, orchestrationLogs)).toBe(1000);
      expect(new Set(result.ids).size).toBe(1000);
      expect(await eventsOfType(db, "logs.appended")).toHaveLength(1);
    });

    it("refuses 1001 rows", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await expect(ingestBatch(admin, { sessionId: SESSION, rows: Array.from({ length: 1001 }, (_, i) => interaction(i)) })).rejects.toThrow(ValidationError);
      expect(await rowCount(db, orchestrationLogs)).toBe(0);
    });

    it.each<[string, Row, string]>([
      ["empty content", { kind: "interaction", agentType: "developer", content: "" }, "rows[417].content"],
      ["a bad reasoning phase", { kind: "reasoning", agentType: "developer", phase: "daydreaming" as never, content: "x" }, "rows[417].phase"],
      ["negative tokens", { kind: "tokens", agentType: "developer", tokens: -5 }, "rows[417].tokens"],
      ["an unknown kind", { kind: "metric", agentType: "developer" } as never, "rows[417].kind"],
    ])("one bad row (%s) at position 417 refuses the whole batch and writes nothing", async (_name, bad, field) => {
      const { db, admin } = await setup(await freshLedger(engine));
      const before = await rowCount(db, events);
      const rows = Array.from({ length: 600 }, (_, i) => (i === 417 ? bad : i % 2 ? interaction(i) : ({ kind: "tokens", agentType: "pm", tokens: i } as Row)));
      let error: unknown;
      try {
        await ingestBatch(admin, { sessionId: SESSION, rows });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
      expect((error as ValidationError).message).toMatch(/^rows\[417\]\./);
      expect(await rowCount(db, orchestrationLogs)).toBe(0);
      expect(await rowCount(db, tokenUsage)).toBe(0);
      expect(await rowCount(db, events)).toBe(before);
    });

    it("refuses a batch for a session that does not exist", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await expect(ingestBatch(admin, { sessionId: "no_such_session", rows: [interaction(1)] })).rejects.toThrow(/session "no_such_session" does not exist/);
      expect(await rowCount(db, orchestrationLogs)).toBe(0);
    });

    it("skips events whose idempotency key was already used, in an earlier call or earlier in the batch", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const earlier = (await saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", idempotencyKey: "v1", payload: { verdict: "ACCEPT" } })).row;
      const result = await ingestBatch(admin, {
        sessionId: SESSION,
        rows: [
          { kind: "event", subtype: "validator_verdict", idempotencyKey: "v1", payload: { verdict: "REJECT" } },
          { kind: "event", subtype: "validator_verdict", idempotencyKey: "v2" },
          { kind: "event", subtype: "validator_verdict", idempotencyKey: "v2" },
          interaction(1),
        ],
      });
      expect(result.logs).toMatchObject({ count: 2, duplicates: 2 });
      expect(result.ids[0]).toBe(earlier.id);
      expect(result.ids[2]).toBe(result.ids[1]);
      expect(await rowCount(db, orchestrationLogs)).toBe(3);
    });

    it("stores nothing and appends no event when every row is a repeat", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const rows: Row[] = [{ kind: "event", subtype: "pm_bazinga", idempotencyKey: "k" }];
      await ingestBatch(admin, { sessionId: SESSION, rows });
      await ingestBatch(admin, { sessionId: SESSION, rows });
      expect(await rowCount(db, orchestrationLogs)).toBe(1);
      expect(await eventsOfType(db, "logs.appended")).toHaveLength(1);
    });
  });
});
