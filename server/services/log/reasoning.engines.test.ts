import { describe, expect, it } from "vitest";
import { checkMandatoryPhases, getReasoning } from "./get-reasoning";
import { getEvents } from "./get-events";
import { logInteraction } from "./log-interaction";
import { reasoningTimeline } from "./reasoning-timeline";
import { saveEvent } from "./save-event";
import { saveReasoning } from "./save-reasoning";
import { SECRETS, SESSION, setup } from "@/test/support/log-helpers";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

async function seed(engine: Engine) {
  const fixture = await setup(await freshLedger(engine));
  const { admin, setClock } = fixture;
  const save = async (at: number, input: Omit<Parameters<typeof saveReasoning>[1], "sessionId">) => {
    setClock(at);
    return saveReasoning(admin, { sessionId: SESSION, ...input });
  };
  const rows = [
    await save(0, {
      groupId: "group_a",
      agentType: "developer",
      agentId: "developer_1",
      phase: "understanding",
      content: "Need OAuth2 with PKCE",
      confidence: "high",
    }),
    await save(5_000, {
      groupId: "group_a",
      agentType: "developer",
      agentId: "developer_1",
      phase: "approach",
      content: `Use the client with api_key=${SECRETS.openaiKey}`,
    }),
    await save(12_000, { groupId: "group_b", agentType: "qa_expert", phase: "risks", content: "Flaky e2e suite", confidence: "low" }),
    await save(20_000, { groupId: "group_a", agentType: "tech_lead", phase: "completion", content: "x".repeat(600), confidence: "medium" }),
  ];
  await logInteraction(admin, { sessionId: SESSION, agentType: "developer", content: "not reasoning", groupId: "group_a" });
  return { ...fixture, rows };
}

describeEngines("log reasoning", (engine) => {
  describe("getReasoning", () => {
    it("returns reasoning only, newest first, filtered by group, agent type and phase", async () => {
      const { db, rows } = await seed(engine);
      const ids = async (input: Omit<Parameters<typeof getReasoning>[1], "sessionId">) =>
        (await getReasoning(db, { sessionId: SESSION, ...input })).map((row) => row.id);
      expect(await ids({})).toEqual([rows[3]!.id, rows[2]!.id, rows[1]!.id, rows[0]!.id]);
      expect(await ids({ groupId: "group_a" })).toEqual([rows[3]!.id, rows[1]!.id, rows[0]!.id]);
      expect(await ids({ groupId: "group_a", agentType: "developer" })).toEqual([rows[1]!.id, rows[0]!.id]);
      expect(await ids({ phase: "risks" })).toEqual([rows[2]!.id]);
      expect(await ids({ limit: 2 })).toEqual([rows[3]!.id, rows[2]!.id]);
    });
  });

  describe("reasoningTimeline", () => {
    it("lists entries oldest first as JSON, optionally for one group", async () => {
      const { db, rows } = await seed(engine);
      const all = await reasoningTimeline(db, { sessionId: SESSION });
      expect(all.format === "json" && all.entries.map((e) => e.id)).toEqual(rows.map((r) => r.id));
      const groupB = await reasoningTimeline(db, { sessionId: SESSION, groupId: "group_b", format: "json" });
      expect(groupB).toEqual({
        format: "json",
        entries: [
          expect.objectContaining({ agentType: "qa_expert", reasoningPhase: "risks", confidenceLevel: "low", content: "Flaky e2e suite", redacted: false }),
        ],
      });
    });

    it("renders BAZINGA's markdown: a header per run of one group, badges, a lock when redacted, long content cut at 500", async () => {
      const { db } = await seed(engine);
      const timeline = await reasoningTimeline(db, { sessionId: SESSION, format: "markdown" });
      expect(timeline).toEqual({
        format: "markdown",
        text: [
          "# Reasoning Timeline",
          "",
          "## Group: group_a",
          "",
          "### [2025-01-12 14:30:00] developer (developer_1) - understanding [high]",
          "",
          "Need OAuth2 with PKCE",
          "",
          "---",
          "",
          "### [2025-01-12 14:30:05] developer (developer_1) - approach 🔒",
          "",
          "Use the client with api_key=[REDACTED:openai_key]",
          "",
          "---",
          "",
          "## Group: group_b",
          "",
          "### [2025-01-12 14:30:12] qa_expert - risks [low]",
          "",
          "Flaky e2e suite",
          "",
          "---",
          "",
          "## Group: group_a",
          "",
          "### [2025-01-12 14:30:20] tech_lead - completion [medium]",
          "",
          `${"x".repeat(500)}...`,
          "",
          "---",
          "",
        ].join("\n"),
      });
    });

    it("says so when there is no reasoning", async () => {
      const { db } = await setup(await freshLedger(engine));
      expect(await reasoningTimeline(db, { sessionId: SESSION, format: "markdown" })).toEqual({
        format: "markdown",
        text: "# Reasoning Timeline\n\nNo reasoning entries found.",
      });
    });
  });

  describe("checkMandatoryPhases", () => {
    it("names understanding and completion until this agent documented them for this group", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const check = async () => checkMandatoryPhases(db, { sessionId: SESSION, groupId: "group_a", agentType: "developer" });
      expect(await check()).toEqual({ complete: false, missing: ["understanding", "completion"], documented: [] });
      await saveReasoning(admin, { sessionId: SESSION, groupId: "group_a", agentType: "developer", phase: "understanding", content: "read the spec" });
      await saveReasoning(admin, { sessionId: SESSION, groupId: "group_a", agentType: "developer", phase: "risks", content: "tight deadline" });
      // Another agent's or another group's completion does not count.
      await saveReasoning(admin, { sessionId: SESSION, groupId: "group_a", agentType: "qa_expert", phase: "completion", content: "tests pass" });
      await saveReasoning(admin, { sessionId: SESSION, groupId: "group_b", agentType: "developer", phase: "completion", content: "other group done" });
      expect(await check()).toEqual({ complete: false, missing: ["completion"], documented: ["understanding", "risks"] });
      await saveReasoning(admin, { sessionId: SESSION, groupId: "group_a", agentType: "developer", phase: "completion", content: "done" });
      expect(await check()).toEqual({ complete: true, missing: [], documented: ["understanding", "risks", "completion"] });
    });
  });

  describe("getEvents", () => {
    it("returns orchestration events newest first with payloads parsed, by subtype, up to the limit", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const bazinga = (await saveEvent(admin, { sessionId: SESSION, subtype: "pm_bazinga", payload: { summary: "All criteria met", iteration: 5 } })).row;
      const verdict = (await saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", payload: { verdict: "ACCEPT" } })).row;
      await logInteraction(admin, { sessionId: SESSION, agentType: "pm", content: "not an event" });
      expect((await getEvents(db, { sessionId: SESSION })).map((e) => e.id)).toEqual([verdict.id, bazinga.id]);
      expect(await getEvents(db, { sessionId: SESSION, subtype: "pm_bazinga" })).toEqual([
        expect.objectContaining({ id: bazinga.id, eventPayload: { summary: "All criteria met", iteration: 5 } }),
      ]);
      expect((await getEvents(db, { sessionId: SESSION, limit: 1 })).map((e) => e.id)).toEqual([verdict.id]);
    });
  });
});
