import { queryAll } from "@/db/query";
import { describe, expect, it } from "vitest";
import { decisions, stateSnapshots } from "@/db/schema";
import { NotFoundError, ValidationError } from "@/server/domain/errors";
import { getDevelopmentPlan } from "./get-development-plan";
import { getLatestState, getSkillOutput } from "./get-state";
import { saveDecision } from "./save-decision";
import { saveDevelopmentPlan } from "./save-development-plan";
import { saveSkillOutput } from "./save-skill-output";
import { saveState } from "./save-state";
import { updatePlanProgress } from "./update-plan-progress";
import { SESSION, T0, eventsOfType, rowCount, setup } from "@/test/support/log-helpers";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

describeEngines("log state-outputs", (engine) => {
  describe("saveState / getLatestState", () => {
    it("appends snapshots; the newest of a type and group is the current state", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const first = await saveState(admin, { sessionId: SESSION, stateType: "pm", data: { iteration: 1 } });
      await saveState(admin, { sessionId: SESSION, stateType: "pm", data: '{"iteration": 2, "mode": "parallel"}' });
      await saveState(admin, { sessionId: SESSION, stateType: "group_status", groupId: "group_a", data: { status: "in_progress" } });
      await saveState(admin, { sessionId: SESSION, stateType: "investigation", groupId: "group_a", data: ["hypothesis 1"] });
      expect(first).toMatchObject({ stateType: "pm", groupId: "global", stateData: '{"iteration":1}' });
      expect(await rowCount(db, stateSnapshots)).toBe(4);
      expect(await getLatestState(db, { sessionId: SESSION, stateType: "pm" })).toMatchObject({ groupId: "global", data: { iteration: 2, mode: "parallel" } });
      expect((await getLatestState(db, { sessionId: SESSION, stateType: "group_status", groupId: "group_a" }))?.data).toEqual({ status: "in_progress" });
      expect((await getLatestState(db, { sessionId: SESSION, stateType: "investigation", groupId: "group_a" }))?.data).toEqual(["hypothesis 1"]);
      expect(await getLatestState(db, { sessionId: SESSION, stateType: "group_status" })).toBeNull();
      expect(await getLatestState(db, { sessionId: SESSION, stateType: "orchestrator" })).toBeNull();
      expect(await eventsOfType(db, "state.saved")).toHaveLength(4);
    });

    it("refuses state that is not JSON, and an unknown state type", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await expect(saveState(admin, { sessionId: SESSION, stateType: "pm", data: "{iteration: 1" })).rejects.toThrow(
        expect.objectContaining({ field: "data", rule: "log.invalid_json" }),
      );
      await expect(saveState(admin, { sessionId: SESSION, stateType: "pm" } as never)).rejects.toThrow(expect.objectContaining({ field: "data" }));
      await expect(saveState(admin, { sessionId: SESSION, stateType: "memory" as never, data: {} })).rejects.toThrow(
        expect.objectContaining({ field: "stateType" }),
      );
      expect(await rowCount(db, stateSnapshots)).toBe(0);
    });
  });

  describe("saveSkillOutput / getSkillOutput", () => {
    it("returns the latest output of a skill, optionally of one agent type", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await saveSkillOutput(admin, { sessionId: SESSION, skillName: "test_coverage", data: { coverage: 61 }, agentType: "qa_expert", groupId: "group_a" });
      await saveSkillOutput(admin, { sessionId: SESSION, skillName: "test_coverage", data: { coverage: 74 }, agentType: "developer", iteration: 2 });
      await saveSkillOutput(admin, { sessionId: SESSION, skillName: "security_scan", data: '{"findings": 0}' });
      expect(await getSkillOutput(db, { sessionId: SESSION, skillName: "test_coverage" })).toMatchObject({
        agentType: "developer",
        iteration: 2,
        data: { coverage: 74 },
      });
      expect(await getSkillOutput(db, { sessionId: SESSION, skillName: "test_coverage", agentType: "qa_expert" })).toMatchObject({
        groupId: "group_a",
        iteration: 1,
        data: { coverage: 61 },
      });
      expect((await getSkillOutput(db, { sessionId: SESSION, skillName: "security_scan" }))?.data).toEqual({ findings: 0 });
      expect(await getSkillOutput(db, { sessionId: SESSION, skillName: "lint_check" })).toBeNull();
      expect((await eventsOfType(db, "skill_output.saved")).map((e) => e.data?.skillName)).toEqual(["test_coverage", "test_coverage", "security_scan"]);
    });
  });

  describe("saveDecision", () => {
    it("stores the decision and appends decision.saved", async () => {
      const { db, as } = await setup(await freshLedger(engine));
      const row = await saveDecision(as("orchestrator", "orchestrator"), {
        sessionId: SESSION,
        decisionType: "escalate_model",
        data: { group: "group_a", to: "opus" },
        iteration: 3,
      });
      expect(await queryAll(db.select().from(decisions))).toEqual([row]);
      expect(row).toMatchObject({ decisionType: "escalate_model", iteration: 3, decisionData: '{"group":"group_a","to":"opus"}' });
      expect(await eventsOfType(db, "decision.saved")).toMatchObject([{ entity: "decision", entityId: String(row.id), actor: "orchestrator" }]);
    });
  });

  describe("development plans", () => {
    const phases = [
      { phase: 1, name: "JWT auth", status: "pending" as const, requested_now: true },
      { phase: 2, name: "User registration" },
    ];

    it("saves one plan per session; saving again replaces it and keeps its creation time", async () => {
      const { db, admin, setClock } = await setup(await freshLedger(engine));
      const first = await saveDevelopmentPlan(admin, {
        sessionId: SESSION,
        originalPrompt: "Do phase 1 only",
        planText: "Phase 1: JWT\nPhase 2: Registration",
        phases,
        currentPhase: 1,
      });
      expect(first).toMatchObject({ totalPhases: 2, currentPhase: 1, metadata: null });
      setClock(60_000);
      const second = await saveDevelopmentPlan(admin, {
        sessionId: SESSION,
        originalPrompt: "Now phase 2",
        planText: "Phase 2: Registration",
        phases: [phases[1]!],
        totalPhases: 3,
        metadata: { plan_type: "user_provided_partial" },
      });
      expect(second.id).toBe(first.id);
      expect(second.createdAt.getTime()).toBe(T0);
      expect(second.updatedAt.getTime()).toBe(T0 + 60_000);
      expect(await getDevelopmentPlan(db, { sessionId: SESSION })).toMatchObject({
        originalPrompt: "Now phase 2",
        totalPhases: 3,
        currentPhase: null,
        phases: [{ phase: 2, name: "User registration", status: "pending" }],
        metadata: { plan_type: "user_provided_partial" },
      });
      expect((await eventsOfType(db, "plan.saved")).map((e) => e.data?.created)).toEqual([true, false]);
    });

    it("updates one phase's status and makes it current; completed phases get completed_at", async () => {
      const { db, admin, setClock } = await setup(await freshLedger(engine));
      await saveDevelopmentPlan(admin, { sessionId: SESSION, originalPrompt: "p", planText: "t", phases, currentPhase: 1 });
      setClock(5_000);
      await updatePlanProgress(admin, { sessionId: SESSION, phase: 1, status: "completed" });
      await updatePlanProgress(admin, { sessionId: SESSION, phase: 2, status: "in_progress" });
      expect(await getDevelopmentPlan(db, { sessionId: SESSION })).toMatchObject({
        currentPhase: 2,
        phases: [
          { phase: 1, name: "JWT auth", status: "completed", requested_now: true, completed_at: "2025-01-12T14:30:05.000Z" },
          { phase: 2, name: "User registration", status: "in_progress" },
        ],
      });
      expect((await eventsOfType(db, "plan.progress_updated")).map((e) => e.data)).toEqual([
        { phase: 1, from: "pending", to: "completed" },
        { phase: 2, from: "pending", to: "in_progress" },
      ]);
    });

    it("refuses progress without a plan or for a phase it does not have, and duplicate phase numbers", async () => {
      const { admin } = await setup(await freshLedger(engine));
      await expect(updatePlanProgress(admin, { sessionId: SESSION, phase: 1, status: "completed" })).rejects.toThrow(NotFoundError);
      await saveDevelopmentPlan(admin, { sessionId: SESSION, originalPrompt: "p", planText: "t", phases });
      await expect(updatePlanProgress(admin, { sessionId: SESSION, phase: 9, status: "completed" })).rejects.toThrow(NotFoundError);
      await expect(
        saveDevelopmentPlan(admin, {
          sessionId: SESSION,
          originalPrompt: "p",
          planText: "t",
          phases: [
            { phase: 1, name: "a" },
            { phase: 1, name: "b" },
          ],
        }),
      ).rejects.toThrow(expect.objectContaining({ field: "phases", rule: "plan.duplicate_phase" }));
      await expect(saveDevelopmentPlan(admin, { sessionId: SESSION, originalPrompt: "p", planText: "t", phases: [] })).rejects.toThrow(ValidationError);
    });

    it("is null for a session without a plan", async () => {
      const { db } = await setup(await freshLedger(engine));
      expect(await getDevelopmentPlan(db, { sessionId: SESSION })).toBeNull();
    });
  });
});
