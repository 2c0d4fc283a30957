import { mapInOrder } from "../in-order";
import { describe, expect, it } from "vitest";
import { contextPackages, decisions, developmentPlans, events, orchestrationLogs, skillOutputs, stateSnapshots, tokenUsage } from "@/db/schema";
import type { Db } from "@/db/client";
import type { Role } from "@/server/domain/actors";
import { NotFoundError, RoleForbiddenError } from "@/server/domain/errors";
import type { ServiceContext } from "../context";
import { getContextPackages } from "./get-context-packages";
import { getDevelopmentPlan } from "./get-development-plan";
import { getEvents } from "./get-events";
import { checkMandatoryPhases, getReasoning } from "./get-reasoning";
import { getLatestState, getSkillOutput } from "./get-state";
import { ingestBatch } from "./ingest-batch";
import { listLogs } from "./list-logs";
import { logInteraction } from "./log-interaction";
import { logTokens } from "./log-tokens";
import { markContextConsumed } from "./mark-context-consumed";
import { reasoningTimeline } from "./reasoning-timeline";
import { saveContextPackage } from "./save-context-package";
import { saveDecision } from "./save-decision";
import { saveDevelopmentPlan } from "./save-development-plan";
import { saveEvent } from "./save-event";
import { saveReasoning } from "./save-reasoning";
import { saveSkillOutput } from "./save-skill-output";
import { saveState } from "./save-state";
import { tokenSummary, tokensOverTime } from "./token-usage";
import { updatePlanProgress } from "./update-plan-progress";
import { SESSION, rowCount, setup } from "@/test/support/log-helpers";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const WRITERS: readonly Role[] = ["agent", "orchestrator", "verifier", "lead", "admin"];
const TABLES = [orchestrationLogs, tokenUsage, stateSnapshots, skillOutputs, decisions, developmentPlans, contextPackages, events];

/** Every write verb, called for `sessionId` (package ids come from the fixture's own package). */
const WRITES: [string, (ctx: ServiceContext, sessionId: string, packageId: number) => Promise<unknown>][] = [
  ["logInteraction", async (ctx, sessionId) => logInteraction(ctx, { sessionId, agentType: "qa_expert", content: "ran the suite" })],
  ["saveReasoning", async (ctx, sessionId) => saveReasoning(ctx, { sessionId, agentType: "qa_expert", phase: "completion", content: "all green" })],
  ["saveEvent", async (ctx, sessionId) => saveEvent(ctx, { sessionId, subtype: "validator_verdict", payload: { verdict: "ACCEPT" } })],
  ["logTokens", async (ctx, sessionId) => logTokens(ctx, { sessionId, agentType: "qa_expert", tokens: 10 })],
  ["ingestBatch", async (ctx, sessionId) => ingestBatch(ctx, { sessionId, rows: [{ kind: "interaction", agentType: "qa_expert", content: "batch" }] })],
  ["saveState", async (ctx, sessionId) => saveState(ctx, { sessionId, stateType: "orchestrator", data: { phase: "qa" } })],
  ["saveSkillOutput", async (ctx, sessionId) => saveSkillOutput(ctx, { sessionId, skillName: "lint_check", data: { findings: 0 } })],
  ["saveDecision", async (ctx, sessionId) => saveDecision(ctx, { sessionId, decisionType: "route_to_qa", data: {} })],
  [
    "saveDevelopmentPlan",
    async (ctx, sessionId) => saveDevelopmentPlan(ctx, { sessionId, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "one" }] }),
  ],
  ["updatePlanProgress", async (ctx, sessionId) => updatePlanProgress(ctx, { sessionId, phase: 1, status: "in_progress" })],
  [
    "saveContextPackage",
    async (ctx, sessionId) =>
      saveContextPackage(ctx, {
        sessionId,
        packageType: "handoff",
        filePath: "h.md",
        producerAgent: "developer",
        consumers: ["qa_expert"],
        summary: "handoff",
      }),
  ],
  ["markContextConsumed", async (ctx, _sessionId, packageId) => markContextConsumed(ctx, { packageId, agentType: "qa_expert", iteration: 3 })],
];

/** A session with a plan and a context package, so every write has something to act on. */
async function prepared(engine: Engine) {
  const fixture = await setup(await freshLedger(engine));
  await saveDevelopmentPlan(fixture.admin, { sessionId: SESSION, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "one" }] });
  const { package: pkg } = await saveContextPackage(fixture.admin, {
    sessionId: SESSION,
    packageType: "research",
    filePath: "r.md",
    producerAgent: "investigator",
    consumers: ["qa_expert"],
    summary: "r",
  });
  return { ...fixture, packageId: pkg.id };
}

const counts = async (db: Db) => mapInOrder(TABLES, async (table) => rowCount(db, table));

describeEngines("log roles", (engine) => {
  describe("who may write telemetry", () => {
    it.each(WRITES)("a viewer is refused %s (log.write_role) and nothing is written", async (_name, write) => {
      const { db, as, packageId } = await prepared(engine);
      const before = await counts(db);
      await expect(write(as("viewer", "watcher@example.com"), SESSION, packageId)).rejects.toThrow(RoleForbiddenError);
      await expect(write(as("viewer"), SESSION, packageId)).rejects.toThrow(expect.objectContaining({ rule: "log.write_role" }));
      expect(await counts(db)).toEqual(before);
    });

    it.each(WRITES)("agents, orchestrators, verifiers, leads and admins may %s", async (name, write) => {
      const { db, as, packageId } = await prepared(engine);
      for (const [i, role] of WRITERS.entries()) {
        const before = await rowCount(db, events);
        await write(as(role), SESSION, packageId);
        // Every write appends its events row; marking a package consumed again is a no-op.
        const repeat = name === "markContextConsumed" && i > 0;
        expect(await rowCount(db, events)).toBe(repeat ? before : before + 1);
      }
    });
  });

  describe("a session that does not exist", () => {
    it.each(WRITES.filter(([name]) => name !== "markContextConsumed"))("%s refuses it with NotFoundError and writes nothing", async (_name, write) => {
      const { db, admin, packageId } = await prepared(engine);
      const before = await counts(db);
      await expect(write(admin, "bazinga_missing", packageId)).rejects.toThrow(NotFoundError);
      await expect(write(admin, "bazinga_missing", packageId)).rejects.toThrow('session "bazinga_missing" does not exist');
      expect(await counts(db)).toEqual(before);
    });

    const missing = "bazinga_missing";
    it.each<[string, (db: Db) => Promise<unknown>]>([
      ["listLogs", async (db) => listLogs(db, { sessionId: missing })],
      ["getReasoning", async (db) => getReasoning(db, { sessionId: missing })],
      ["reasoningTimeline", async (db) => reasoningTimeline(db, { sessionId: missing, format: "markdown" })],
      ["checkMandatoryPhases", async (db) => checkMandatoryPhases(db, { sessionId: missing, groupId: "g", agentType: "developer" })],
      ["getEvents", async (db) => getEvents(db, { sessionId: missing })],
      ["tokenSummary", async (db) => tokenSummary(db, { sessionId: missing })],
      ["tokensOverTime", async (db) => tokensOverTime(db, { sessionId: missing })],
      ["getLatestState", async (db) => getLatestState(db, { sessionId: missing, stateType: "pm" })],
      ["getSkillOutput", async (db) => getSkillOutput(db, { sessionId: missing, skillName: "lint_check" })],
      ["getContextPackages", async (db) => getContextPackages(db, { sessionId: missing, groupId: "g", agentType: "developer" })],
      ["getDevelopmentPlan", async (db) => getDevelopmentPlan(db, { sessionId: missing })],
    ])("%s refuses it with NotFoundError", async (_name, read) => {
      const { db } = await setup(await freshLedger(engine));
      await expect(read(db)).rejects.toThrow(NotFoundError);
    });
  });
});
