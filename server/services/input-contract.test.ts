/**
 * The services' input contract, checked on the verbs themselves (not through tRPC): every verb
 * that takes input from a caller (the command line, the importer, an adapter, a test) refuses bad
 * input with a ValidationError naming the field, maps to BAD_REQUEST through the API's one error
 * mapping, and writes nothing. Valid inputs come from the API's table, so each refusal below can
 * only come from the one field the row breaks.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type Db } from "@/db/client";
import { toTRPCError } from "@/server/api/errors";
import { VALID_INPUTS, world } from "@/test/support/procedure-inputs";
import { ACTORS, tableCounts } from "@/test/support/api-helpers";
import { ValidationError } from "@/server/domain/errors";
import { createToken, revokeToken } from "./admin/tokens";
import { createFirstAdmin, createUser, setUserRole } from "./admin/users";
import { createWebhook } from "./webhooks/create";
import { removeWebhook, testWebhook } from "./webhooks/manage";
import { analyticsOverview } from "./analytics/overview";
import { inboxCount } from "./approvals/count";
import { listInbox } from "./approvals/inbox";
import { finishAttempt } from "./attempt/finish";
import { getAttempt } from "./attempt/get";
import { recordToolCalls } from "./attempt/record-tool-calls";
import { recordTrustScore } from "./attempt/record-trust-score";
import { recordValidationRun } from "./attempt/record-validation-run";
import { startAttempt } from "./attempt/start";
import { checkCompletion, listCompletionChecks } from "./completion/check";
import { previewCompletion } from "./completion/preview";
import type { ServiceContext } from "./context";
import { listCriteria } from "./criteria/list";
import { saveCriteria } from "./criteria/save";
import { setCriterionRequired, updateCriterion, verifyCriterion } from "./criteria/update";
import { listEventsAfter } from "./events/list";
import { searchEvents } from "./events/search";
import { addValidationStep } from "./goal/add-validation-step";
import { createGoal } from "./goal/create";
import { createBranch } from "./goal/create-branch";
import { createWorktree } from "./goal/create-worktree";
import { evaluateGoalGate } from "./goal/evaluate";
import { listEvaluations } from "./goal/evaluations";
import { getGoal } from "./goal/get";
import { recordMerge } from "./goal/record-merge";
import { setGoalContract } from "./goal/set-contract";
import { getGoalTree } from "./goal/tree";
import { getContextPackages } from "./log/get-context-packages";
import { getDevelopmentPlan } from "./log/get-development-plan";
import { getEvents } from "./log/get-events";
import { checkMandatoryPhases, getReasoning } from "./log/get-reasoning";
import { getLatestState, getSkillOutput } from "./log/get-state";
import { ingestBatch } from "./log/ingest-batch";
import { listLogs } from "./log/list-logs";
import { logInteraction } from "./log/log-interaction";
import { logTokens } from "./log/log-tokens";
import { markContextConsumed } from "./log/mark-context-consumed";
import { reasoningTimeline } from "./log/reasoning-timeline";
import { saveContextPackage } from "./log/save-context-package";
import { saveDecision } from "./log/save-decision";
import { saveDevelopmentPlan } from "./log/save-development-plan";
import { saveEvent } from "./log/save-event";
import { saveReasoning } from "./log/save-reasoning";
import { saveSkillOutput } from "./log/save-skill-output";
import { saveState } from "./log/save-state";
import { tokenSummary, tokensOverTime } from "./log/token-usage";
import { updatePlanProgress } from "./log/update-plan-progress";
import { getOverview } from "./overview/get";
import { purgeSessions } from "./purge/purge";
import { createSession } from "./session/create";
import { getSession } from "./session/get";
import { listSessions } from "./session/list";
import { setSessionEnforcement, updateSessionStatus } from "./session/update-status";
import { createTask } from "./task/create";
import { getTask, getTaskBoard, listTasks } from "./task/list";
import { moveTask } from "./task/move";
import { reportTask } from "./task/report";

type Verb = (ctx: ServiceContext, input: never) => unknown;
/** A field set to a value its schema refuses, and the field the refusal must name. */
type Break = [field: string, value: unknown, named?: string];

interface Row {
  verb: Verb;
  valid: Record<string, unknown>;
  wrongType: Break;
  outOfRange: Break;
}

const db =
  (verb: (db: Db, input: never) => unknown): Verb =>
  (ctx, input) =>
    verb(ctx.db, input);
const valid = (path: string): Record<string, unknown> => (VALID_INPUTS[path] as Record<string, unknown> | undefined) ?? {};
const S = { sessionId: "s1" };

/** Every verb that takes a caller's input, by the procedure that calls it (or its own name). */
const VERBS: Record<string, Row> = {
  "session.list": { verb: db(listSessions), valid: {}, wrongType: ["hasBlocked", "yes"], outOfRange: ["limit", 0] },
  "session.get": { verb: db(getSession), valid: valid("session.get"), wrongType: ["id", 42], outOfRange: ["id", "x".repeat(201)] },
  "session.overview": { verb: db(getOverview), valid: {}, wrongType: ["liveLimit", "20"], outOfRange: ["liveLimit", 101] },
  "session.create": { verb: createSession, valid: valid("session.create"), wrongType: ["metadata", "note"], outOfRange: ["id", "bad id!"] },
  "session.updateStatus": { verb: updateSessionStatus, valid: valid("session.updateStatus"), wrongType: ["sessionId", 1], outOfRange: ["status", "finished"] },
  "session.setEnforcement": {
    verb: setSessionEnforcement,
    valid: valid("session.setEnforcement"),
    wrongType: ["reason", 7],
    outOfRange: ["enforcement", "lenient"],
  },
  "task.list": { verb: db(listTasks), valid: valid("task.list"), wrongType: ["sessionId", 1], outOfRange: ["status", "done"] },
  "task.get": { verb: db(getTask), valid: valid("task.get"), wrongType: ["key", ["t1"]], outOfRange: ["key", ""] },
  "task.board": { verb: db(getTaskBoard), valid: valid("task.board"), wrongType: ["sessionId", { id: "s1" }], outOfRange: ["sessionId", ""] },
  "task.inbox": { verb: db(listInbox), valid: {}, wrongType: ["cursor", 5], outOfRange: ["limit", 201] },
  "task.inboxCount": { verb: db(inboxCount), valid: {}, wrongType: ["sessionId", 5], outOfRange: ["sessionId", "x".repeat(201)] },
  "task.create": { verb: createTask, valid: valid("task.create"), wrongType: ["title", 5], outOfRange: ["complexity", 11] },
  "task.report": { verb: reportTask, valid: valid("task.report"), wrongType: ["securitySensitive", "yes"], outOfRange: ["status", "done"] },
  "task.claim": { verb: moveTask, valid: { ...valid("task.claim"), move: "claim" }, wrongType: ["evidence", "out.txt"], outOfRange: ["move", "finish"] },
  "criteria.list": { verb: db(listCriteria), valid: valid("criteria.list"), wrongType: ["sessionId", null], outOfRange: ["sessionId", ""] },
  "criteria.save": {
    verb: saveCriteria,
    valid: valid("criteria.save"),
    wrongType: ["criteria", "new"],
    outOfRange: ["criteria", [{ criterion: "  " }], "criteria[0].criterion"],
  },
  "criteria.update": { verb: updateCriterion, valid: valid("criteria.update"), wrongType: ["evidence", 1], outOfRange: ["status", "done"] },
  "criteria.verify": { verb: verifyCriterion, valid: valid("criteria.verify"), wrongType: ["actual", {}], outOfRange: ["status", "done"] },
  "criteria.setRequired": { verb: setCriterionRequired, valid: valid("criteria.setRequired"), wrongType: ["required", "no"], outOfRange: ["criterion", ""] },
  "completion.check": {
    verb: checkCompletion,
    valid: valid("completion.check"),
    wrongType: ["claimedVerdict", true],
    outOfRange: ["claimedVerdict", "x".repeat(201)],
  },
  "completion.list": { verb: db(listCompletionChecks), valid: valid("completion.list"), wrongType: ["limit", "10"], outOfRange: ["limit", -1] },
  "completion.preview": { verb: db(previewCompletion), valid: valid("completion.preview"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "events.list": { verb: db(listEventsAfter), valid: {}, wrongType: ["afterId", "0"], outOfRange: ["afterId", -1] },
  "events.search": {
    verb: db(searchEvents),
    valid: valid("events.search"),
    wrongType: ["cursor", "9"],
    outOfRange: ["filter", { source: "cron" }, "filter.source"],
  },
  "goal.tree": { verb: db(getGoalTree), valid: valid("goal.tree"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "goal.get": { verb: db(getGoal), valid: valid("goal.get"), wrongType: ["goalId", "1"], outOfRange: ["goalId", 0] },
  "goal.evaluations": { verb: db(listEvaluations), valid: valid("goal.evaluations"), wrongType: ["goalId", "1"], outOfRange: ["goalId", -1] },
  "goal.create": { verb: createGoal, valid: valid("goal.create"), wrongType: ["goalText", 5], outOfRange: ["goalText", "   "] },
  "goal.addValidationStep": {
    verb: addValidationStep,
    valid: valid("goal.addValidationStep"),
    wrongType: ["command", ["npm", "test"]],
    outOfRange: ["command", ""],
  },
  "goal.setContract": { verb: setGoalContract, valid: valid("goal.setContract"), wrongType: ["goalId", "1"], outOfRange: ["goalId", 0] },
  "goal.createBranch": { verb: createBranch, valid: valid("goal.createBranch"), wrongType: ["name", 5], outOfRange: ["parentCommitSha", "not-a-sha"] },
  "goal.createWorktree": { verb: createWorktree, valid: valid("goal.createWorktree"), wrongType: ["path", 5], outOfRange: ["path", " "] },
  "goal.recordMerge": { verb: recordMerge, valid: valid("goal.recordMerge"), wrongType: ["fromBranchId", "2"], outOfRange: ["resultCommitSha", "xyz"] },
  "goal.evaluate": { verb: evaluateGoalGate, valid: valid("goal.evaluate"), wrongType: ["attemptId", "1"], outOfRange: ["attemptId", -1] },
  "attempt.get": { verb: db(getAttempt), valid: valid("attempt.get"), wrongType: ["attemptId", "1"], outOfRange: ["limit", 501] },
  "attempt.start": { verb: startAttempt, valid: valid("attempt.start"), wrongType: ["model", 5], outOfRange: ["startCommitSha", "HEAD"] },
  "attempt.toolCalls": { verb: recordToolCalls, valid: valid("attempt.toolCalls"), wrongType: ["calls", "bash"], outOfRange: ["attemptId", 0] },
  "attempt.finish": { verb: finishAttempt, valid: valid("attempt.finish"), wrongType: ["metrics", "0.8"], outOfRange: ["status", "crashed"] },
  "attempt.validationRun": { verb: recordValidationRun, valid: valid("attempt.validationRun"), wrongType: ["output", 5], outOfRange: ["exitCode", 0.5] },
  "attempt.trustScore": { verb: recordTrustScore, valid: valid("attempt.trustScore"), wrongType: ["score", "90"], outOfRange: ["score", 101] },
  "log.list": { verb: db(listLogs), valid: valid("log.list"), wrongType: ["cursor", "abc"], outOfRange: ["limit", 0] },
  "log.interaction": { verb: logInteraction, valid: valid("log.interaction"), wrongType: ["content", 5], outOfRange: ["agentType", ""] },
  "log.reasoning": { verb: saveReasoning, valid: valid("log.reasoning"), wrongType: ["content", 5], outOfRange: ["phase", "dreaming"] },
  "log.getReasoning": { verb: db(getReasoning), valid: valid("log.getReasoning"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "log.reasoningTimeline": { verb: db(reasoningTimeline), valid: valid("log.reasoningTimeline"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "log.mandatoryPhases": { verb: db(checkMandatoryPhases), valid: valid("log.mandatoryPhases"), wrongType: ["groupId", 1], outOfRange: ["agentType", ""] },
  "log.event": { verb: saveEvent, valid: valid("log.event"), wrongType: ["subtype", 5], outOfRange: ["subtype", ""] },
  "log.events": { verb: db(getEvents), valid: valid("log.events"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "log.tokens": { verb: logTokens, valid: valid("log.tokens"), wrongType: ["tokens", "1"], outOfRange: ["tokens", -1] },
  "log.tokenSummary": { verb: db(tokenSummary), valid: valid("log.tokenSummary"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "log.tokensOverTime": { verb: db(tokensOverTime), valid: valid("log.tokensOverTime"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "log.batch": {
    verb: ingestBatch,
    valid: valid("log.batch"),
    wrongType: ["rows", "tokens"],
    outOfRange: ["rows", [{ kind: "tokens", agentType: "a", tokens: -1 }], "rows[0].tokens"],
  },
  "log.saveState": { verb: saveState, valid: valid("log.saveState"), wrongType: ["stateType", 5], outOfRange: ["stateType", ""] },
  "log.state": { verb: db(getLatestState), valid: valid("log.state"), wrongType: ["stateType", 5], outOfRange: ["stateType", ""] },
  "log.saveSkillOutput": { verb: saveSkillOutput, valid: valid("log.saveSkillOutput"), wrongType: ["skillName", 5], outOfRange: ["skillName", ""] },
  "log.skillOutput": { verb: db(getSkillOutput), valid: valid("log.skillOutput"), wrongType: ["skillName", 5], outOfRange: ["skillName", ""] },
  "log.decision": { verb: saveDecision, valid: valid("log.decision"), wrongType: ["decisionType", 5], outOfRange: ["decisionType", ""] },
  "log.savePlan": {
    verb: saveDevelopmentPlan,
    valid: valid("log.savePlan"),
    wrongType: ["planText", 5],
    outOfRange: ["phases", [{ phase: -1, name: "n" }], "phases[0].phase"],
  },
  "log.planProgress": { verb: updatePlanProgress, valid: valid("log.planProgress"), wrongType: ["phase", "1"], outOfRange: ["status", "finished"] },
  "log.plan": { verb: db(getDevelopmentPlan), valid: valid("log.plan"), wrongType: ["sessionId", 1], outOfRange: ["sessionId", ""] },
  "log.saveContextPackage": {
    verb: saveContextPackage,
    valid: valid("log.saveContextPackage"),
    wrongType: ["consumers", "b"],
    outOfRange: ["packageType", "novel"],
  },
  "log.contextPackages": { verb: db(getContextPackages), valid: valid("log.contextPackages"), wrongType: ["groupId", 1], outOfRange: ["agentType", ""] },
  "log.markContextConsumed": {
    verb: markContextConsumed,
    valid: valid("log.markContextConsumed"),
    wrongType: ["packageId", "1"],
    outOfRange: ["packageId", 0],
  },
  "analytics.overview": { verb: db(analyticsOverview), valid: {}, wrongType: ["from", "yesterday"], outOfRange: ["bucket", "month"] },
  "admin.createUser": { verb: createUser, valid: valid("admin.createUser"), wrongType: ["password", 1234567890], outOfRange: ["password", "short"] },
  "admin.setUserRole": { verb: setUserRole, valid: valid("admin.setUserRole"), wrongType: ["userId", 1], outOfRange: ["role", "owner"] },
  "admin.createToken": { verb: createToken, valid: valid("admin.createToken"), wrongType: ["expiresInDays", "30"], outOfRange: ["expiresInDays", 0] },
  "admin.revokeToken": { verb: revokeToken, valid: valid("admin.revokeToken"), wrongType: ["id", "1"], outOfRange: ["id", 0] },
  "admin.createWebhook": { verb: createWebhook, valid: valid("admin.createWebhook"), wrongType: ["url", 5], outOfRange: ["format", "xml"] },
  "admin.removeWebhook": { verb: removeWebhook, valid: valid("admin.removeWebhook"), wrongType: ["id", "1"], outOfRange: ["id", 0] },
  "admin.testWebhook": { verb: testWebhook, valid: valid("admin.testWebhook"), wrongType: ["id", "1"], outOfRange: ["id", 0] },
  "setup.createFirstAdmin": { verb: db(createFirstAdmin), valid: valid("setup.createFirstAdmin"), wrongType: ["email", 5], outOfRange: ["password", "short"] },
  purgeSessions: { verb: purgeSessions, valid: { before: new Date(0), dryRun: true }, wrongType: ["before", "2020-01-01"], outOfRange: ["reason", ""] },
};

/** What the verb threw (synchronously or as a rejected promise); fails the test if it returned. */
async function thrownBy(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to be refused");
}

let database: Db;
beforeAll(async () => {
  database = (await world()).db;
}, 60_000);

const cases = Object.entries(VERBS).flatMap(([name, row]) => [
  { name, kind: "an unknown field", input: { ...row.valid, bogus: true }, field: "bogus", row },
  { name, kind: "a wrong type", input: { ...row.valid, [row.wrongType[0]]: row.wrongType[1] }, field: row.wrongType[2] ?? row.wrongType[0], row },
  { name, kind: "a value out of range", input: { ...row.valid, [row.outOfRange[0]]: row.outOfRange[1] }, field: row.outOfRange[2] ?? row.outOfRange[0], row },
]);

describe("every service verb, called directly with bad input", () => {
  it.each(cases)("$name refuses $kind with a ValidationError naming $field, and writes nothing", async ({ input, field, row }) => {
    const ctx: ServiceContext = { db: database, actor: ACTORS.admin };
    const before = tableCounts(database);
    const error = await thrownBy(() => row.verb(ctx, input as never));
    expect(error, String(error)).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe(field);
    expect((error as ValidationError).message).toMatch(new RegExp(`^${field.replace(/[[\].]/g, "\\$&")}: \\S`));
    // An adapter that maps service errors through the API's one mapping answers 400, never 500.
    expect(toTRPCError(error).code).toBe("BAD_REQUEST");
    expect(tableCounts(database)).toEqual(before);
  });

  it("names a field nested in a list, with the rule of the feature", async () => {
    const error = await thrownBy(async () => saveCriteria({ db: database, actor: ACTORS.admin }, { ...S, criteria: [{ criterion: "ok" }, { criterion: "" }] }));
    expect(error).toBeInstanceOf(ValidationError);
    expect([(error as ValidationError).message, (error as ValidationError).rule]).toEqual([
      "criteria[1].criterion: must not be empty",
      "criteria.invalid_input",
    ]);
  });
});
