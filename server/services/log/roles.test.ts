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

const WRITERS: readonly Role[] = ["agent", "orchestrator", "verifier", "lead", "admin"];
const TABLES = [orchestrationLogs, tokenUsage, stateSnapshots, skillOutputs, decisions, developmentPlans, contextPackages, events];

/** Every write verb, called for `sessionId` (package ids come from the fixture's own package). */
const WRITES: [string, (ctx: ServiceContext, sessionId: string, packageId: number) => unknown][] = [
  ["logInteraction", (ctx, sessionId) => logInteraction(ctx, { sessionId, agentType: "qa_expert", content: "ran the suite" })],
  ["saveReasoning", (ctx, sessionId) => saveReasoning(ctx, { sessionId, agentType: "qa_expert", phase: "completion", content: "all green" })],
  ["saveEvent", (ctx, sessionId) => saveEvent(ctx, { sessionId, subtype: "validator_verdict", payload: { verdict: "ACCEPT" } })],
  ["logTokens", (ctx, sessionId) => logTokens(ctx, { sessionId, agentType: "qa_expert", tokens: 10 })],
  ["ingestBatch", (ctx, sessionId) => ingestBatch(ctx, { sessionId, rows: [{ kind: "interaction", agentType: "qa_expert", content: "batch" }] })],
  ["saveState", (ctx, sessionId) => saveState(ctx, { sessionId, stateType: "orchestrator", data: { phase: "qa" } })],
  ["saveSkillOutput", (ctx, sessionId) => saveSkillOutput(ctx, { sessionId, skillName: "lint_check", data: { findings: 0 } })],
  ["saveDecision", (ctx, sessionId) => saveDecision(ctx, { sessionId, decisionType: "route_to_qa", data: {} })],
  ["saveDevelopmentPlan", (ctx, sessionId) => saveDevelopmentPlan(ctx, { sessionId, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "one" }] })],
  ["updatePlanProgress", (ctx, sessionId) => updatePlanProgress(ctx, { sessionId, phase: 1, status: "in_progress" })],
  [
    "saveContextPackage",
    (ctx, sessionId) =>
      saveContextPackage(ctx, {
        sessionId,
        packageType: "handoff",
        filePath: "h.md",
        producerAgent: "developer",
        consumers: ["qa_expert"],
        summary: "handoff",
      }),
  ],
  ["markContextConsumed", (ctx, _sessionId, packageId) => markContextConsumed(ctx, { packageId, agentType: "qa_expert", iteration: 3 })],
];

/** A session with a plan and a context package, so every write has something to act on. */
function prepared() {
  const fixture = setup();
  saveDevelopmentPlan(fixture.admin, { sessionId: SESSION, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "one" }] });
  const { package: pkg } = saveContextPackage(fixture.admin, {
    sessionId: SESSION,
    packageType: "research",
    filePath: "r.md",
    producerAgent: "investigator",
    consumers: ["qa_expert"],
    summary: "r",
  });
  return { ...fixture, packageId: pkg.id };
}

const counts = (db: Db) => TABLES.map((table) => rowCount(db, table));

describe("who may write telemetry", () => {
  it.each(WRITES)("a viewer is refused %s (log.write_role) and nothing is written", (_name, write) => {
    const { db, as, packageId } = prepared();
    const before = counts(db);
    expect(() => write(as("viewer", "watcher@example.com"), SESSION, packageId)).toThrow(RoleForbiddenError);
    expect(() => write(as("viewer"), SESSION, packageId)).toThrow(expect.objectContaining({ rule: "log.write_role" }));
    expect(counts(db)).toEqual(before);
  });

  it.each(WRITES)("agents, orchestrators, verifiers, leads and admins may %s", (name, write) => {
    const { db, as, packageId } = prepared();
    WRITERS.forEach((role, i) => {
      const before = rowCount(db, events);
      write(as(role), SESSION, packageId);
      // Every write appends its events row; marking a package consumed again is a no-op.
      const repeat = name === "markContextConsumed" && i > 0;
      expect(rowCount(db, events)).toBe(repeat ? before : before + 1);
    });
  });
});

describe("a session that does not exist", () => {
  it.each(WRITES.filter(([name]) => name !== "markContextConsumed"))("%s refuses it with NotFoundError and writes nothing", (_name, write) => {
    const { db, admin, packageId } = prepared();
    const before = counts(db);
    expect(() => write(admin, "bazinga_missing", packageId)).toThrow(NotFoundError);
    expect(() => write(admin, "bazinga_missing", packageId)).toThrow('session "bazinga_missing" does not exist');
    expect(counts(db)).toEqual(before);
  });

  const missing = "bazinga_missing";
  it.each<[string, (db: Db) => unknown]>([
    ["listLogs", (db) => listLogs(db, { sessionId: missing })],
    ["getReasoning", (db) => getReasoning(db, { sessionId: missing })],
    ["reasoningTimeline", (db) => reasoningTimeline(db, { sessionId: missing, format: "markdown" })],
    ["checkMandatoryPhases", (db) => checkMandatoryPhases(db, { sessionId: missing, groupId: "g", agentType: "developer" })],
    ["getEvents", (db) => getEvents(db, { sessionId: missing })],
    ["tokenSummary", (db) => tokenSummary(db, { sessionId: missing })],
    ["tokensOverTime", (db) => tokensOverTime(db, { sessionId: missing })],
    ["getLatestState", (db) => getLatestState(db, { sessionId: missing, stateType: "pm" })],
    ["getSkillOutput", (db) => getSkillOutput(db, { sessionId: missing, skillName: "lint_check" })],
    ["getContextPackages", (db) => getContextPackages(db, { sessionId: missing, groupId: "g", agentType: "developer" })],
    ["getDevelopmentPlan", (db) => getDevelopmentPlan(db, { sessionId: missing })],
  ])("%s refuses it with NotFoundError", (_name, read) => {
    const { db } = setup();
    expect(() => read(db)).toThrow(NotFoundError);
  });
});
