import { type Command, InvalidArgumentError } from "commander";
import { CONTEXT_PACKAGE_TYPES, CONTEXT_PRIORITIES } from "@/server/domain/vocabulary";
import type { RoutedContextPackage } from "@/server/services/log/get-context-packages";
import type { ContextConsumerRow, ContextPackageRow } from "@/server/services/log/save-context-package";
import { GetContextPackagesInput, MarkContextConsumedInput, SaveContextPackageInput } from "@/server/services/log/schemas";
import type { TaskRow } from "@/server/services/task/load";
import { hostileInputError } from "@/server/domain/input-guard";
import { ReportTaskInput } from "@/server/services/task/schemas";
import { exitCodeOf } from "../api";
import type { Output } from "../output";
import { noteTranslation } from "./bazinga-input";
import { act, example, int, json, oneOf, plural, read, sessionArg, snakeKeys, stringList, validate, wrote } from "./shared";

/** Context packages handed between agents: save-context-package, get-context-packages, mark-context-consumed. */
export function contextCommands(program: Command, out: Output): void {
  example(
    program
      .command("save-context-package")
      .description("Save a context package (research, failures, decisions…) for the agent types that should read it")
      .argument("<session>", "session id", sessionArg)
      .argument("<group_id>", "task group, or global")
      .argument("<type>", CONTEXT_PACKAGE_TYPES.join(", "), oneOf(CONTEXT_PACKAGE_TYPES))
      .argument("<file_path>", "where the package's file is")
      .argument("<producer>", "agent type that wrote it")
      .argument("<consumers_json>", 'JSON array of agent types, e.g. ["developer","qa_expert"]', stringList)
      .argument("<priority>", CONTEXT_PRIORITIES.join(", "), oneOf(CONTEXT_PRIORITIES))
      .argument("<summary>", "one line for spawn prompts (cut to 200 characters)"),
    'proofgate save-context-package bazinga_20250112_143022 group_a research bazinga/artifacts/ctx-1.md requirements_engineer \'["developer"]\' high "OAuth2 provider notes"',
  ).action(
    act(
      out,
      (
        sessionId: string,
        groupId: string,
        packageType: string,
        filePath: string,
        producerAgent: string,
        consumers: string[],
        priority: string,
        summary: string,
      ) => {
        const input = validate(
          SaveContextPackageInput,
          { sessionId, groupId, packageType, filePath, producerAgent, consumers, priority, summary },
          { sessionId: "session", groupId: "group_id", packageType: "type", filePath: "file_path", producerAgent: "producer", consumers: "consumers_json" },
        );
        return async (api) => {
          const saved = await api.mutate<{ package: ContextPackageRow; consumers: ContextConsumerRow[] }>("log.saveContextPackage", input);
          return wrote(
            { ...snakeKeys(saved.package), consumers: saved.consumers.map((c) => c.agentType) },
            `✓ Saved ${packageType} context package #${saved.package.id} for ${plural(saved.consumers.length, "consumer")}`,
          );
        };
      },
    ),
  );

  example(
    program
      .command("get-context-packages")
      .description("The pending context packages for an agent about to be spawned, most important first")
      .argument("<session>", "session id", sessionArg)
      .argument("<group_id>", "task group")
      .argument("<agent_type>", "the agent type being spawned")
      .argument("[limit]", "how many (1–50, default 3)", int(1, 50)),
    "proofgate get-context-packages bazinga_20250112_143022 group_a developer 3",
  ).action(
    act(out, (sessionId: string, groupId: string, agentType: string, limit: number | undefined) => {
      const input = validate(
        GetContextPackagesInput,
        { sessionId, groupId, agentType, limit: limit ?? 3 },
        { sessionId: "session", groupId: "group_id", agentType: "agent_type" },
      );
      return async (api) => read((await api.query<RoutedContextPackage[]>("log.contextPackages", input)).map(snakeKeys));
    }),
  );

  example(
    program
      .command("mark-context-consumed")
      .description("Record that an agent type read a context package")
      .argument("<package_id>", "the package's id", int(1))
      .argument("<agent_type>", "the agent type that read it")
      .argument("[iteration]", "iteration (default 1)", int(1)),
    "proofgate mark-context-consumed 12 developer 1",
  ).action(
    act(out, (packageId: number, agentType: string, iteration: number | undefined) => {
      const input = validate(MarkContextConsumedInput, { packageId, agentType, iteration }, { agentType: "agent_type" });
      return async (api) =>
        wrote(snakeKeys(await api.mutate<ContextConsumerRow>("log.markContextConsumed", input)), `✓ Context package ${packageId} consumed by ${agentType}`);
    }),
  );

  example(
    program
      .command("update-context-references")
      .description("Set the context packages a task group refers to (its context_references)")
      .argument("<group_id>", "task group (bazinga_db.py's order: group, then session)", groupArg)
      .argument("<session>", "session id", sessionArg)
      .argument("<package_ids_json>", "JSON array of context package ids, e.g. [1, 3]", packageIds),
    "proofgate update-context-references group_a bazinga_20250112_143022 '[1, 3]'",
  ).action(
    act(out, (groupId: string, sessionId: string, packageIds: number[]) => {
      return async (api, globals) => {
        // bazinga_db.py takes <group> <session>; its context skill documents <session> <group>. A
        // pair that names no task group is tried the other way round before giving up.
        const orders: [string, string][] = [
          [sessionId, groupId],
          [groupId, sessionId],
        ];
        for (const [session, key] of orders) {
          const input = { sessionId: session, key, contextReferences: packageIds };
          if (!ReportTaskInput.safeParse(input).success) continue;
          const task = await api.mutate<TaskRow>("task.report", input).catch((error: unknown) => {
            if (exitCodeOf(error) === 3) return null;
            throw error;
          });
          if (!task) continue;
          if (session !== sessionId)
            noteTranslation(globals, [`update-context-references: no group ${groupId} in session ${sessionId}; used group ${key} of session ${session}`]);
          return wrote(snakeKeys(task), `✓ Updated context references for ${key}: [${packageIds.join(", ")}]`);
        }
        // As bazinga_db.py: a warning, and nothing changed.
        process.stderr.write(`! Warning: No task group found with id='${groupId}' and session_id='${sessionId}'\n`);
        return read(null, "");
      };
    }),
  );
}

/** A task group's id as the API accepts one (no NUL, no lone surrogate…). */
function groupArg(value: string): string {
  const result = ReportTaskInput.shape.key.safeParse(value);
  if (!result.success || hostileInputError(value)) throw new InvalidArgumentError(result.error?.issues[0]?.message ?? "must be plain text");
  return value;
}

function packageIds(value: string): number[] {
  const list = json("array")(value) as unknown[];
  if (!list.every((id) => Number.isSafeInteger(id))) throw new InvalidArgumentError("must be a JSON array of integers, e.g. [1, 3, 5]");
  return list as number[];
}
