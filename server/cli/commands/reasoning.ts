import type { Command } from "commander";
import { CONFIDENCE_LEVELS, REASONING_PHASES } from "@/server/domain/vocabulary";
import type { MandatoryPhasesCheck } from "@/server/services/log/get-reasoning";
import type { LogRow } from "@/server/services/log/log-row";
import type { ReasoningTimeline } from "@/server/services/log/reasoning-timeline";
import { CheckMandatoryPhasesInput, GetReasoningInput, ReasoningTimelineInput, SaveReasoningInput } from "@/server/services/log/schemas";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { CheckFailed, act, dualOption, example, int, oneOf, pick, read, readText, sessionArg, snakeKeys, stringList, validate, wrote } from "./shared";

const phase = oneOf(REASONING_PHASES);

/** Agents' reasoning capture: save-reasoning, get-reasoning, reasoning-timeline, check-mandatory-phases. */
export function reasoningCommands(program: Command, out: Output): void {
  const save = program
    .command("save-reasoning")
    .description("Save an agent's reasoning for one phase of its work on a group (secrets are redacted on the way in)")
    .argument("<session>", "session id", sessionArg)
    .argument("<group>", "task group id, or global")
    .argument("<agent>", "agent type, e.g. developer")
    .argument("<phase>", REASONING_PHASES.join(", "), phase)
    .argument("[content]", "the reasoning (or --content-file)")
    .option("--confidence <level>", CONFIDENCE_LEVELS.join(", "), oneOf(CONFIDENCE_LEVELS))
    .option("--references <json>", "JSON array of files consulted", stringList)
    .option("--iteration <n>", "orchestration iteration", int(0));
  dualOption(save, "content-file", "file", "read the reasoning from this file", readText);
  dualOption(save, "agent_id", "id", "the agent instance, e.g. developer_1");
  example(
    save,
    'proofgate save-reasoning bazinga_20250112_143022 group_a developer understanding "Need OAuth2 with PKCE" --confidence high --references \'["src/auth.ts"]\'',
  ).action(
    act(out, (sessionId: string, groupId: string, agentType: string, reasoningPhase: string, content: string | undefined, options: Record<string, unknown>) => {
      const fromFile = pick<string>(options, "content-file");
      if (content !== undefined && fromFile !== undefined) throw new UsageError("content: give it as an argument or with --content-file, not both");
      if (content === undefined && fromFile === undefined) throw new UsageError("content: required (as the fifth argument or with --content-file FILE)");
      const input = validate(
        SaveReasoningInput,
        {
          sessionId,
          groupId,
          agentType,
          phase: reasoningPhase,
          content: content ?? fromFile,
          confidence: options.confidence,
          references: options.references,
          iteration: options.iteration,
          agentId: pick(options, "agent_id"),
        },
        {
          sessionId: "session",
          groupId: "group",
          agentType: "agent",
          content: content === undefined ? "--content-file" : "content",
          confidence: "--confidence",
          references: "--references",
          iteration: "--iteration",
          agentId: "--agent_id",
        },
      );
      return async (api) => {
        const row = await api.mutate<LogRow>("log.reasoning", input);
        return wrote(
          snakeKeys(row),
          `✓ Saved ${reasoningPhase} reasoning for ${agentType} in ${groupId} (#${row.id}${row.redacted ? ", secrets redacted" : ""})`,
        );
      };
    }),
  );

  const get = program
    .command("get-reasoning")
    .description("List reasoning entries, newest first, filtered by group, agent type and phase")
    .argument("<session>", "session id", sessionArg)
    .option("--phase <phase>", REASONING_PHASES.join(", "), phase)
    .option("--limit <n>", "how many (default 50)", int(1, 500));
  dualOption(get, "group_id", "group", "only this group");
  dualOption(get, "agent_type", "agent", "only this agent type");
  example(get, "proofgate get-reasoning bazinga_20250112_143022 --group_id group_a --agent_type developer --phase understanding").action(
    act(out, (sessionId: string, options: Record<string, unknown>) => {
      const input = validate(
        GetReasoningInput,
        { sessionId, groupId: pick(options, "group_id"), agentType: pick(options, "agent_type"), phase: options.phase, limit: options.limit },
        { sessionId: "session", groupId: "--group_id", agentType: "--agent_type" },
      );
      return async (api) => read((await api.query<LogRow[]>("log.getReasoning", input)).map(snakeKeys));
    }),
  );

  const timeline = program
    .command("reasoning-timeline")
    .description("Every agent's reasoning in order, as JSON or as markdown")
    .argument("<session>", "session id", sessionArg)
    .option("--format <format>", "json (default) or markdown", oneOf(["json", "markdown"] as const));
  dualOption(timeline, "group_id", "group", "only this group");
  example(timeline, "proofgate reasoning-timeline bazinga_20250112_143022 --group_id group_a --format markdown").action(
    act(out, (sessionId: string, options: Record<string, unknown>) => {
      const input = validate(
        ReasoningTimelineInput,
        { sessionId, groupId: pick(options, "group_id"), format: options.format ?? "json" },
        { groupId: "--group_id" },
      );
      return async (api) => {
        const result = await api.query<ReasoningTimeline>("log.reasoningTimeline", input);
        return result.format === "markdown" ? read(result, result.text) : read(result.entries.map(snakeKeys));
      };
    }),
  );

  example(
    program
      .command("check-mandatory-phases")
      .description("Has this agent documented its understanding and completion reasoning for the group? Exit 1 when either is missing")
      .argument("<session>", "session id", sessionArg)
      .argument("<group>", "task group id")
      .argument("<agent>", "agent type"),
    "proofgate check-mandatory-phases bazinga_20250112_143022 group_a developer",
  ).action(
    act(out, (sessionId: string, groupId: string, agentType: string) => {
      const input = validate(CheckMandatoryPhasesInput, { sessionId, groupId, agentType }, { groupId: "group", agentType: "agent" });
      return async (api) => {
        const check = await api.query<MandatoryPhasesCheck>("log.mandatoryPhases", input);
        const fail = check.complete
          ? undefined
          : new CheckFailed("reasoning.mandatory_phases_missing", `${agentType} has not documented ${check.missing.join(" and ")} reasoning for ${groupId}`);
        return { ...read(check), fail };
      };
    }),
  );
}
