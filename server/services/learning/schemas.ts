import { z } from "zod";
import { Label, SessionId, Text } from "../schemas-common";

const Hints = z.array(z.string().max(1000)).max(100);
const Limit = (max: number, fallback: number) => z.number().int().min(1).max(max).default(fallback);

/** An error that was fixed, and how (BAZINGA's `save-error-pattern`). */
export const SaveErrorPatternInput = z
  .object({
    projectId: Label,
    errorType: z.string().max(1000),
    errorMessage: Text,
    solution: Text,
    lang: Label.nullish(),
    contextHints: Hints.nullish(),
    stackPattern: Hints.nullish(),
    /** The session that saw it, when the caller knows. */
    sessionId: SessionId.nullish(),
  })
  .strict();
export type SaveErrorPatternInput = z.input<typeof SaveErrorPatternInput>;

export const GetErrorPatternsInput = z
  .object({ projectId: Label, lang: Label.nullish(), minConfidence: z.number().min(0).max(1).default(0.7), limit: Limit(100, 5) })
  .strict();
export type GetErrorPatternsInput = z.input<typeof GetErrorPatternsInput>;

export const UpdateErrorConfidenceInput = z.object({ patternHash: Label, projectId: Label, outcome: z.enum(["success", "failure"]) }).strict();
export type UpdateErrorConfidenceInput = z.input<typeof UpdateErrorConfidenceInput>;

export const CleanupErrorPatternsInput = z.object({ projectId: Label.nullish() }).strict();
export type CleanupErrorPatternsInput = z.input<typeof CleanupErrorPatternsInput>;

/** An insight from successful work (BAZINGA's `save-strategy`). */
export const SaveStrategyInput = z
  .object({
    projectId: Label,
    topic: Label,
    insight: z.string().trim().min(1, "must not be empty").max(100_000),
    lang: Label.nullish(),
    framework: Label.nullish(),
    strategyId: Label.nullish(),
    sessionId: SessionId.nullish(),
  })
  .strict();
export type SaveStrategyInput = z.input<typeof SaveStrategyInput>;

export const GetStrategiesInput = z
  .object({ projectId: Label, lang: Label.nullish(), framework: Label.nullish(), topic: Label.nullish(), limit: Limit(100, 5) })
  .strict();
export type GetStrategiesInput = z.input<typeof GetStrategiesInput>;

export const UpdateStrategyHelpfulnessInput = z.object({ strategyId: Label, increment: z.number().int().min(0).max(100).default(1) }).strict();
export type UpdateStrategyHelpfulnessInput = z.input<typeof UpdateStrategyHelpfulnessInput>;

export const ExtractStrategiesInput = z
  .object({ sessionId: SessionId, groupId: Label, projectId: Label, lang: Label.nullish(), framework: Label.nullish() })
  .strict();
export type ExtractStrategiesInput = z.input<typeof ExtractStrategiesInput>;

/** An agent read a context package in an iteration of a group (BAZINGA's `save-consumption`). */
export const SaveConsumptionInput = z
  .object({ sessionId: SessionId, groupId: Label, agentType: Label, iteration: z.number().int().min(0).max(1_000_000), packageId: z.number().int().min(0) })
  .strict();
export type SaveConsumptionInput = z.input<typeof SaveConsumptionInput>;

export const GetConsumptionInput = z.object({ sessionId: SessionId, groupId: Label.nullish(), agentType: Label.nullish(), limit: Limit(1000, 50) }).strict();
export type GetConsumptionInput = z.input<typeof GetConsumptionInput>;

export const SessionLearningInput = z.object({ sessionId: SessionId }).strict();
export type SessionLearningInput = z.input<typeof SessionLearningInput>;
