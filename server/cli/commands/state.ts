import type { Command } from "commander";
import { STATE_TYPES } from "@/server/domain/vocabulary";
import type { DevelopmentPlan } from "@/server/services/log/get-development-plan";
import type { SkillOutput, StateSnapshot } from "@/server/services/log/get-state";
import type { DevelopmentPlanRow } from "@/server/services/log/save-development-plan";
import type { SkillOutputRow } from "@/server/services/log/save-skill-output";
import type { StateSnapshotRow } from "@/server/services/log/save-state";
import {
  GetLatestStateInput,
  GetSkillOutputInput,
  PLAN_PHASE_STATUSES,
  ListSkillOutputsInput,
  SaveDevelopmentPlanInput,
  SaveSkillOutputInput,
  SaveStateInput,
  UpdatePlanProgressInput,
} from "@/server/services/log/schemas";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { extrasNote, ignoreExtras, noteTranslation } from "./bazinga-input";
import { act, dualOption, example, int, json, oneOf, pick, read, sessionArg, snakeKeys, validate, wrote } from "./shared";

/** State snapshots, skill outputs and the development plan: documents agents save and read back. */
export function stateCommands(program: Command, out: Output): void {
  const saveState = program
    .command("save-state")
    .description("Save a state snapshot (append-only: the newest of a type and group is the current state)")
    .argument("<session>", "session id", sessionArg)
    .argument("<type>", STATE_TYPES.join(", "), oneOf(STATE_TYPES))
    .argument("<json>", "the state as JSON (or @file)", json());
  dualOption(saveState, "group-id", "group", "task group (default global)");
  example(saveState, 'proofgate save-state bazinga_20250112_143022 pm \'{"mode":"parallel","iteration":3}\'').action(
    act(out, (sessionId: string, stateType: string, data: unknown, options: Record<string, unknown>) => {
      const input = validate(
        SaveStateInput,
        { sessionId, stateType, data, groupId: pick(options, "group-id") },
        { sessionId: "session", data: "json", groupId: "--group-id" },
      );
      return async (api) => {
        const row = await api.mutate<StateSnapshotRow>("log.saveState", input);
        return wrote(snakeKeys(row), `✓ Saved ${stateType} state for ${sessionId}${row.groupId === "global" ? "" : ` (${row.groupId})`}`);
      };
    }),
  );

  const getState = program
    .command("get-state")
    .description("Print the latest state of a type as saved (null when there is none)")
    .argument("<session>", "session id", sessionArg)
    .argument("<type>", STATE_TYPES.join(", "), oneOf(STATE_TYPES));
  dualOption(getState, "group-id", "group", "task group (default global)");
  example(getState, "proofgate get-state bazinga_20250112_143022 pm").action(
    act(out, (sessionId: string, stateType: string, options: Record<string, unknown>) => {
      const input = validate(GetLatestStateInput, { sessionId, stateType, groupId: pick(options, "group-id") }, { groupId: "--group-id" });
      return async (api) => read((await api.query<StateSnapshot | null>("log.state", input))?.data ?? null);
    }),
  );

  example(
    program
      .command("save-skill-output")
      .description("Save a skill's output (security scan, coverage, lint…); the iteration counts up per skill, agent and group")
      .argument("<session>", "session id", sessionArg)
      .argument("<skill>", "skill name, e.g. security_scan")
      .argument("<json>", "the output as JSON (or @file)", json())
      .option("--agent <type>", "agent type that ran it")
      .option("--group <id>", "task group")
      .option("--iteration <n>", "iteration (default: one after the latest)", int(1)),
    'proofgate save-skill-output bazinga_20250112_143022 security_scan \'{"vulnerabilities":[],"severity":"none"}\' --agent developer --group group_a',
  ).action(
    act(out, (sessionId: string, skillName: string, data: unknown, options: { agent?: string; group?: string; iteration?: number }) => {
      const base = { sessionId, skillName, data, agentType: options.agent, groupId: options.group };
      validate(
        SaveSkillOutputInput,
        { ...base, iteration: options.iteration },
        { sessionId: "session", skillName: "skill", data: "json", agentType: "--agent", groupId: "--group" },
      );
      return async (api) => {
        const latest = options.iteration
          ? null
          : await api.query<SkillOutput | null>("log.skillOutput", { sessionId, skillName, agentType: options.agent, groupId: options.group });
        const iteration = options.iteration ?? (latest ? latest.iteration + 1 : 1);
        const row = await api.mutate<SkillOutputRow>("log.saveSkillOutput", { ...base, iteration });
        return wrote({ iteration, ...snakeKeys(row) }, `✓ Saved ${skillName} output (iteration ${iteration})`);
      };
    }),
  );

  example(
    program
      .command("get-skill-output")
      .description("Print a skill's latest output as saved (null when there is none)")
      .argument("<session>", "session id", sessionArg)
      .argument("<skill>", "skill name")
      .option("--agent <type>", "only this agent type's output"),
    "proofgate get-skill-output bazinga_20250112_143022 security_scan --agent developer",
  ).action(
    act(out, (sessionId: string, skillName: string, options: { agent?: string }) => {
      const input = validate(GetSkillOutputInput, { sessionId, skillName, agentType: options.agent }, { skillName: "skill", agentType: "--agent" });
      return async (api) => read((await api.query<SkillOutput | null>("log.skillOutput", input))?.data ?? null);
    }),
  );

  example(
    program
      .command("get-skill-output-all")
      .description("Print every output of a skill, newest first: iteration, agent_type, group_id, timestamp, output_data (BAZINGA's shape)")
      .argument("<session>", "session id", sessionArg)
      .argument("<skill>", "skill name")
      .option("--agent <type>", "only this agent type's outputs"),
    "proofgate get-skill-output-all bazinga_20250112_143022 specialization-loader",
  ).action(
    act(out, (sessionId: string, skillName: string, options: { agent?: string }) => {
      const input = validate(
        ListSkillOutputsInput,
        { sessionId, skillNames: [skillName], agentType: options.agent },
        { skillNames: "skill", agentType: "--agent" },
      );
      return async (api) => read((await api.query<SkillOutput[]>("log.skillOutputs", input)).map(skillOutputView));
    }),
  );

  const evidence = program
    .command("check-skill-evidence")
    .description("Whether each mandatory skill saved an output recently: {complete, missing, found, mandatory, recency_window_minutes}")
    .argument("<session>", "session id", sessionArg)
    .argument("<skills>", "skill names, comma-separated")
    .option("--agent <type>", "only outputs of this agent type")
    .option("--since <minutes>", "the recency window in minutes (default 30)", int(1), 30);
  example(ignoreExtras(evidence), "proofgate check-skill-evidence bazinga_20250112_143022 lint-check,security-scan --agent developer --since 30").action(
    act(out, (sessionId: string, skills: string, options: { agent?: string; since: number }) => {
      const mandatory = skills
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const notes = extrasNote(evidence, "check-skill-evidence");
      return async (api, globals) => {
        noteTranslation(globals, notes);
        const summary = { complete: true, missing: [] as string[], found: [] as string[], mandatory, recency_window_minutes: options.since };
        if (mandatory.length === 0) return read(summary);
        const input = validate(
          ListSkillOutputsInput,
          { sessionId, skillNames: mandatory, agentType: options.agent, sinceMs: Date.now() - options.since * 60_000 },
          { skillNames: "skills", agentType: "--agent" },
        );
        const seen = new Set((await api.query<SkillOutput[]>("log.skillOutputs", input)).map((o) => o.skillName));
        summary.found = mandatory.filter((s) => seen.has(s));
        summary.missing = mandatory.filter((s) => !seen.has(s));
        summary.complete = summary.missing.length === 0;
        return read(summary);
      };
    }),
  );

  example(
    program
      .command("save-development-plan")
      .description("Save the session's development plan (saving again replaces it)")
      .argument("<session>", "session id", sessionArg)
      .argument("<prompt>", "the original prompt")
      .argument("<plan>", "the plan's text")
      .argument("<phases_json>", "JSON array of {phase, name, status?, …}", json("array"))
      .argument("<current>", "the current phase number", int(1))
      .argument("<total>", "the number of phases", int(1))
      .argument("[metadata]", "a JSON object", json("object")),
    'proofgate save-development-plan bazinga_20250112_143022 "Add auth" "1. JWT 2. OAuth" \'[{"phase":1,"name":"JWT"},{"phase":2,"name":"OAuth"}]\' 1 2',
  ).action(
    act(out, (sessionId: string, originalPrompt: string, planText: string, phases: unknown, currentPhase: number, totalPhases: number, metadata: unknown) => {
      const input = validate(
        SaveDevelopmentPlanInput,
        { sessionId, originalPrompt, planText, phases, currentPhase, totalPhases, metadata },
        { sessionId: "session", originalPrompt: "prompt", planText: "plan", phases: "phases_json", currentPhase: "current", totalPhases: "total" },
      );
      return async (api) => {
        const row = await api.mutate<DevelopmentPlanRow>("log.savePlan", input);
        return wrote(snakeKeys(row), `✓ Saved development plan for ${sessionId} (${row.totalPhases} phases, current ${row.currentPhase ?? "none"})`);
      };
    }),
  );

  example(
    program
      .command("get-development-plan")
      .description("Print the session's development plan (null when there is none)")
      .argument("<session>", "session id", sessionArg),
    "proofgate get-development-plan bazinga_20250112_143022",
  ).action(
    act(out, (sessionId: string) => async (api) => {
      const plan = await api.query<DevelopmentPlan | null>("log.plan", { sessionId });
      return read(plan ? snakeKeys(plan) : null);
    }),
  );

  example(
    program
      .command("update-plan-progress")
      .description("Set one phase's status and make it the current phase")
      .argument("<session>", "session id", sessionArg)
      .argument("<phase>", "phase number, or the phase's name (as bazinga_db.py matches it)")
      .argument("<status>", PLAN_PHASE_STATUSES.join(", "), oneOf(PLAN_PHASE_STATUSES))
      .argument("[progress_percent]", "progress of the phase, 0–100 (a completed phase is 100)", int(0, 100)),
    "proofgate update-plan-progress bazinga_20250112_143022 1 completed",
    'proofgate update-plan-progress bazinga_20250112_143022 "Core" in_progress 40',
  ).action(
    act(out, (sessionId: string, phase: string, status: string, progressPercent: number | undefined) => {
      const number = /^\d+$/.test(phase) ? Number(phase) : null;
      const checked = (n: number) =>
        validate(
          UpdatePlanProgressInput,
          { sessionId, phase: n, status, ...(progressPercent === undefined ? {} : { progressPercent }) },
          { sessionId: "session", phase: "phase" },
        );
      if (number !== null) checked(number);
      return async (api) => {
        // A name is matched as bazinga_db.py matches it: the phase's `name`, or its number as text.
        const n = number ?? phaseNumberByName(await api.query<DevelopmentPlan | null>("log.plan", { sessionId }), phase);
        const row = await api.mutate<DevelopmentPlanRow>("log.planProgress", checked(n));
        return wrote(snakeKeys(row), `✓ Phase ${phase} of ${sessionId}'s plan is ${status}`);
      };
    }),
  );
}

function phaseNumberByName(plan: DevelopmentPlan | null, name: string): number {
  const phases = Array.isArray(plan?.phases) ? (plan.phases as Record<string, unknown>[]) : [];
  const match = phases.find((p) => p.name === name);
  if (!match || typeof match.phase !== "number") throw new UsageError(`phase: the session's plan has no phase named "${name}"`);
  return match.phase;
}

/** A skill output as bazinga_db.py's get-skill-output-all prints it. */
function skillOutputView(o: SkillOutput): Record<string, unknown> {
  return { iteration: o.iteration, agent_type: o.agentType, group_id: o.groupId, timestamp: o.timestamp, output_data: o.data };
}
