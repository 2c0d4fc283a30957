import { describe, expect, it } from "vitest";
import { ingestBatch } from "./ingest-batch";
import { logTokens } from "./log-tokens";
import { tokenSummary, tokensOverTime } from "./token-usage";
import { SESSION, setup } from "@/test/support/log-helpers";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const HOUR = 3_600_000;

/** Six token rows over two UTC hours (T0 is 14:30:00Z); sums below are worked out by hand. */
async function seed(engine: Engine) {
  const fixture = await setup(await freshLedger(engine));
  const { admin, setClock } = fixture;
  const log = async (at: number, agentType: string, tokens: number, agentId?: string, model?: string) => {
    setClock(at);
    await logTokens(admin, { sessionId: SESSION, agentType, tokens, agentId, model });
  };
  await log(0, "developer", 15_000, "developer_1", "sonnet");
  await log(0, "developer", 2_500, "developer_2", "opus");
  await log(30_000, "pm", 5_000, "pm_1", "opus");
  await log(70_000, "qa_expert", 8_000, "qa_1");
  await log(HOUR + 10_000, "developer", 1_000, "developer_1", "sonnet");
  await log(HOUR + 20_000, "pm", 0);
  return fixture;
}

describeEngines("log token-usage", (engine) => {
  describe("tokenSummary", () => {
    it("sums by agent type, largest first, with the total", async () => {
      const { db } = await seed(engine);
      expect(await tokenSummary(db, { sessionId: SESSION })).toEqual({
        by: "agent_type",
        groups: [
          { key: "developer", tokens: 18_500, entries: 3 }, // 15,000 + 2,500 + 1,000
          { key: "qa_expert", tokens: 8_000, entries: 1 },
          { key: "pm", tokens: 5_000, entries: 2 }, // 5,000 + 0
        ],
        total: 31_500,
      });
    });

    it("sums by agent id, with the rows that named none under null", async () => {
      const { db } = await seed(engine);
      expect(await tokenSummary(db, { sessionId: SESSION, by: "agent_id" })).toEqual({
        by: "agent_id",
        groups: [
          { key: "developer_1", tokens: 16_000, entries: 2 },
          { key: "qa_1", tokens: 8_000, entries: 1 },
          { key: "pm_1", tokens: 5_000, entries: 1 },
          { key: "developer_2", tokens: 2_500, entries: 1 },
          { key: null, tokens: 0, entries: 1 },
        ],
        total: 31_500,
      });
    });

    it("sums by model", async () => {
      const { db } = await seed(engine);
      expect(await tokenSummary(db, { sessionId: SESSION, by: "model" })).toEqual({
        by: "model",
        groups: [
          { key: "sonnet", tokens: 16_000, entries: 2 },
          { key: null, tokens: 8_000, entries: 2 },
          { key: "opus", tokens: 7_500, entries: 2 },
        ],
        total: 31_500,
      });
    });

    it("counts batch-ingested tokens and is zero for a session without any", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      expect(await tokenSummary(db, { sessionId: SESSION })).toEqual({ by: "agent_type", groups: [], total: 0 });
      await ingestBatch(admin, {
        sessionId: SESSION,
        rows: [
          { kind: "tokens", agentType: "pm", tokens: 11 },
          { kind: "tokens", agentType: "pm", tokens: 31 },
        ],
      });
      expect((await tokenSummary(db, { sessionId: SESSION })).total).toBe(42);
    });
  });

  describe("tokensOverTime", () => {
    it("buckets by hour with a running total and a split by agent type", async () => {
      const { db } = await seed(engine);
      expect(await tokensOverTime(db, { sessionId: SESSION })).toEqual([
        { start: new Date("2025-01-12T14:00:00.000Z"), tokens: 30_500, cumulative: 30_500, byAgentType: { developer: 17_500, pm: 5_000, qa_expert: 8_000 } },
        { start: new Date("2025-01-12T15:00:00.000Z"), tokens: 1_000, cumulative: 31_500, byAgentType: { developer: 1_000, pm: 0 } },
      ]);
    });

    it("buckets by minute and by day", async () => {
      const { db } = await seed(engine);
      expect((await tokensOverTime(db, { sessionId: SESSION, bucket: "minute" })).map((b) => [b.start.toISOString(), b.tokens, b.cumulative])).toEqual([
        ["2025-01-12T14:30:00.000Z", 22_500, 22_500],
        ["2025-01-12T14:31:00.000Z", 8_000, 30_500],
        ["2025-01-12T15:30:00.000Z", 1_000, 31_500],
      ]);
      expect((await tokensOverTime(db, { sessionId: SESSION, bucket: "day" })).map((b) => [b.start.toISOString(), b.tokens])).toEqual([
        ["2025-01-12T00:00:00.000Z", 31_500],
      ]);
    });
  });
});
