import { type Command, InvalidArgumentError } from "commander";
import type { ConsumptionRow } from "@/server/services/learning/consumption";
import type { ErrorPatternRow } from "@/server/services/learning/error-patterns";
import * as L from "@/server/services/learning/schemas";
import type { StrategyRow } from "@/server/services/learning/strategies";
import type { Output } from "../output";
import { extrasNote, ignoreExtras, noteTranslation } from "./bazinga-input";
import { act, dualOption, example, int, pick, read, sessionArg, snakeKeys, stringList, validate } from "./shared";

/** bazinga_db.py reads these as Python's int(): any whole number, clamped by the command. */
const anyInt = (value: string): number => {
  if (!/^\s*[-+]?\d+\s*$/.test(value)) throw new InvalidArgumentError("must be a whole number");
  return Number(value);
};
const anyNumber = (value: string): number => {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError("must be a number");
  return n;
};
const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n));
const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** A row as BAZINGA prints it: its columns' names, times as ISO text. */
function bazingaRow(row: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(snakeKeys(row)).map(([k, v]) => [k, iso(v)]));
}

/**
 * BAZINGA's context-engineering commands (schema v19): error patterns and strategies learned per
 * project, and which agent consumed which context package in which iteration. Arguments as
 * bazinga_db.py takes them; where it ignores extra arguments, so do these (named by --verbose).
 */
export function learningCommands(program: Command, out: Output): void {
  const savePattern = program
    .command("save-error-pattern")
    .description(
      "Save an error and how it was fixed, for a project: its signature (paths, line numbers, quoted values removed) identifies it; saving it again counts an occurrence",
    )
    .argument("<project_id>", "the project (BAZINGA reads it from the session's metadata.project_id)")
    .argument("<error_type>", "the error's class, e.g. ModuleNotFoundError")
    .argument("<error_message>", "the error's message")
    .argument("<solution>", "how it was fixed")
    .option("--lang <lang>", "the language")
    .option("--session <id>", "the session that saw it (Proofgate: shows it on that session's page)", sessionArg);
  dualOption(savePattern, "context_hints", "json", "JSON array of hints for matching", stringList);
  dualOption(savePattern, "stack_pattern", "json", "JSON array of simplified stack frames", stringList);
  example(savePattern, 'proofgate save-error-pattern calc TypeError "x is undefined in src/calc.py line 12" "define x before the loop" --lang python').action(
    act(out, (projectId: string, errorType: string, errorMessage: string, solution: string, options: Record<string, unknown>) => {
      const input = validate(
        L.SaveErrorPatternInput,
        {
          projectId,
          errorType,
          errorMessage,
          solution,
          lang: options.lang,
          contextHints: pick(options, "context_hints"),
          stackPattern: pick(options, "stack_pattern"),
          sessionId: options.session,
        },
        {
          projectId: "project_id",
          errorType: "error_type",
          errorMessage: "error_message",
          contextHints: "--context_hints",
          stackPattern: "--stack_pattern",
          sessionId: "--session",
        },
      );
      return async (api) => {
        const row = await api.mutate<ErrorPatternRow & { operation: string }>("log.saveErrorPattern", input);
        return read({
          success: true,
          pattern_hash: row.patternHash,
          operation: row.operation,
          occurrences: row.occurrences,
          confidence: row.confidence,
          redacted: row.redacted,
        });
      };
    }),
  );

  const getPatterns = program
    .command("get-error-patterns")
    .description("A project's error patterns at or above a confidence (default 0.7), most confident first (default 5)")
    .argument("<project_id>", "the project")
    .option("--lang <lang>", "only this language");
  dualOption(getPatterns, "min_confidence", "n", "minimum confidence, 0–1", anyNumber);
  dualOption(getPatterns, "limit", "n", "how many (1–100)", anyInt);
  example(getPatterns, "proofgate get-error-patterns calc --lang python --min_confidence 0.5").action(
    act(out, (projectId: string, options: Record<string, unknown>) => {
      const min = pick<number>(options, "min_confidence") ?? 0.7;
      const input = validate(
        L.GetErrorPatternsInput,
        { projectId, lang: options.lang, minConfidence: clamp(min, 0, 1), limit: clamp(pick<number>(options, "limit") ?? 5, 1, 100) },
        { projectId: "project_id", lang: "--lang" },
      );
      return async (api) => {
        // Confidence never exceeds 1: above it nothing matches, as in bazinga_db.py.
        if (min > 1) return read([]);
        const rows = await api.query<ErrorPatternRow[]>("log.errorPatterns", input);
        return read(rows.map(({ signatureJson, ...row }) => ({ ...bazingaRow(row), signature: safeJson(signatureJson) })));
      };
    }),
  );

  example(
    program
      .command("update-error-confidence")
      .description("Adjust a pattern's confidence: success +0.1 (at most 1), failure −0.2 (at least 0.1)")
      .argument("<pattern_hash>", "the pattern's hash")
      .argument("<project_id>", "the project")
      .argument("<outcome>", "success or failure", (v: string) => {
        const outcome = v.toLowerCase();
        if (outcome !== "success" && outcome !== "failure") throw new InvalidArgumentError("must be success or failure");
        return outcome;
      }),
    "proofgate update-error-confidence 3f2a… calc success",
  ).action(
    act(out, (patternHash: string, projectId: string, outcome: string) => {
      const input = validate(L.UpdateErrorConfidenceInput, { patternHash, projectId, outcome }, { patternHash: "pattern_hash", projectId: "project_id" });
      return async (api) => read({ success: true, ...snakeKeys(await api.mutate<object>("log.updateErrorConfidence", input)) });
    }),
  );

  example(
    program
      .command("cleanup-error-patterns")
      .description("Remove error patterns past their time to live (90 days from last seen)")
      .argument("[project_id]", "only this project"),
    "proofgate cleanup-error-patterns calc",
  ).action(
    act(out, (projectId: string | undefined) => {
      const input = validate(L.CleanupErrorPatternsInput, { projectId }, { projectId: "project_id" });
      return async (api) => read({ success: true, ...snakeKeys(await api.mutate<object>("log.cleanupErrorPatterns", input)) });
    }),
  );

  const saveConsumption = program
    .command("save-consumption")
    .description("Record that an agent read a context package in an iteration of a group (the same record twice is one row)")
    .argument("<session>", "session id", sessionArg)
    .argument("<group_id>", "task group")
    .argument("<agent_type>", "the agent that read it")
    .argument("<iteration>", "iteration (from 0)", int(0))
    .argument("<package_id>", "the context package's id", int(0));
  example(ignoreExtras(saveConsumption), "proofgate save-consumption bazinga_20250112_143022 group_a developer 1 12").action(
    act(out, (sessionId: string, groupId: string, agentType: string, iteration: number, packageId: number) => {
      const input = validate(
        L.SaveConsumptionInput,
        { sessionId, groupId, agentType, iteration, packageId },
        { sessionId: "session", groupId: "group_id", agentType: "agent_type" },
      );
      const notes = extrasNote(saveConsumption, "save-consumption");
      return async (api, globals) => {
        noteTranslation(globals, notes);
        const row = await api.mutate<ConsumptionRow & { inserted: boolean }>("log.saveConsumption", input);
        return read({
          success: true,
          inserted: row.inserted,
          scope_id: row.scopeId,
          session_id: sessionId,
          group_id: groupId,
          agent_type: agentType,
          iteration,
          package_id: packageId,
        });
      };
    }),
  );

  const getConsumption = program
    .command("get-consumption")
    .description("A session's consumption records, newest first (default 50)")
    .argument("<session>", "session id", sessionArg);
  dualOption(getConsumption, "group_id", "id", "only this group");
  dualOption(getConsumption, "agent_type", "type", "only this agent type");
  dualOption(getConsumption, "limit", "n", "how many (1–1000)", anyInt);
  example(ignoreExtras(getConsumption), "proofgate get-consumption bazinga_20250112_143022 --group_id group_a --agent_type developer").action(
    act(out, (sessionId: string, options: Record<string, unknown>) => {
      const input = validate(
        L.GetConsumptionInput,
        { sessionId, groupId: pick(options, "group_id"), agentType: pick(options, "agent_type"), limit: clamp(pick<number>(options, "limit") ?? 50, 1, 1000) },
        { sessionId: "session", groupId: "--group_id", agentType: "--agent_type" },
      );
      const notes = extrasNote(getConsumption, "get-consumption");
      return async (api, globals) => {
        noteTranslation(globals, notes);
        return read((await api.query<ConsumptionRow[]>("log.consumption", input)).map(bazingaRow));
      };
    }),
  );

  const saveStrategy = program
    .command("save-strategy")
    .description("Save a strategy (an insight from successful work) for a project; saving the same insight again counts it as helpful once more")
    .argument("<project_id>", "the project")
    .argument("<topic>", "implementation, architecture, methodology or general (anything else is general)")
    .argument("<insight>", "the insight (cut to 500 characters)")
    .option("--lang <lang>", "the language")
    .option("--framework <name>", "the framework")
    .option("--session <id>", "the session it came from (Proofgate: shows it on that session's page)", sessionArg);
  dualOption(saveStrategy, "strategy_id", "id", "the strategy's id (default: derived from the insight)");
  example(ignoreExtras(saveStrategy), 'proofgate save-strategy calc implementation "Write the failing test first" --lang python --framework pytest').action(
    act(out, (projectId: string, topic: string, insight: string, options: Record<string, unknown>) => {
      const input = validate(
        L.SaveStrategyInput,
        { projectId, topic, insight, lang: options.lang, framework: options.framework, strategyId: pick(options, "strategy_id"), sessionId: options.session },
        { projectId: "project_id", strategyId: "--strategy_id", sessionId: "--session" },
      );
      const notes = extrasNote(saveStrategy, "save-strategy");
      return async (api, globals) => {
        noteTranslation(globals, notes);
        const row = await api.mutate<StrategyRow>("log.saveStrategy", input);
        return read({ success: true, strategy_id: row.strategyId, project_id: row.projectId, topic: row.topic });
      };
    }),
  );

  const getStrategies = program
    .command("get-strategies")
    .description("A project's strategies, most helpful first (default 5)")
    .argument("<project_id>", "the project")
    .option("--lang <lang>", "this language (and strategies for any)")
    .option("--framework <name>", "this framework (and strategies for any)")
    .option("--topic <topic>", "only this topic");
  dualOption(getStrategies, "limit", "n", "how many (1–100)", anyInt);
  example(ignoreExtras(getStrategies), "proofgate get-strategies calc --topic implementation").action(
    act(out, (projectId: string, options: Record<string, unknown>) => {
      const input = validate(
        L.GetStrategiesInput,
        { projectId, lang: options.lang, framework: options.framework, topic: options.topic, limit: clamp(pick<number>(options, "limit") ?? 5, 1, 100) },
        { projectId: "project_id" },
      );
      const notes = extrasNote(getStrategies, "get-strategies");
      return async (api, globals) => {
        noteTranslation(globals, notes);
        return read((await api.query<StrategyRow[]>("log.strategies", input)).map(bazingaRow));
      };
    }),
  );

  example(
    program
      .command("update-strategy-helpfulness")
      .description("Count a strategy as helpful again (default +1, at most 100 at a time)")
      .argument("<strategy_id>", "the strategy's id")
      .argument("[increment]", "how much (0–100)", anyInt),
    "proofgate update-strategy-helpfulness calc_implementation_1a2b3c4d5e6f7a8b",
  ).action(
    act(out, (strategyId: string, increment: number | undefined) => {
      const input = validate(L.UpdateStrategyHelpfulnessInput, { strategyId, increment: clamp(increment ?? 1, 0, 100) }, { strategyId: "strategy_id" });
      return async (api) => read({ success: true, ...snakeKeys(await api.mutate<object>("log.updateStrategyHelpfulness", input)) });
    }),
  );

  const extract = program
    .command("extract-strategies")
    .description("Turn a group's latest completion, decisions and approach reasoning into strategies of the project (after a tech lead's approval)")
    .argument("<session>", "session id", sessionArg)
    .argument("<group_id>", "task group")
    .argument("<project_id>", "the project")
    .option("--lang <lang>", "the language")
    .option("--framework <name>", "the framework");
  example(ignoreExtras(extract), "proofgate extract-strategies bazinga_20250112_143022 group_a calc --lang python").action(
    act(out, (sessionId: string, groupId: string, projectId: string, options: { lang?: string; framework?: string }) => {
      const input = validate(
        L.ExtractStrategiesInput,
        { sessionId, groupId, projectId, lang: options.lang, framework: options.framework },
        { sessionId: "session", groupId: "group_id", projectId: "project_id" },
      );
      const notes = extrasNote(extract, "extract-strategies");
      return async (api, globals) => {
        noteTranslation(globals, notes);
        const result = await api.mutate<{ extracted: number; strategies: StrategyRow[] }>("log.extractStrategies", input);
        return read({ success: true, extracted: result.extracted, strategy_ids: result.strategies.map((s) => s.strategyId) });
      };
    }),
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}
