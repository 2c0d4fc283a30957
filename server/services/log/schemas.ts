import { z } from "zod";
import { CONFIDENCE_LEVELS, CONTEXT_PACKAGE_TYPES, CONTEXT_PRIORITIES, LOG_TYPES, REASONING_PHASES, STATE_TYPES } from "@/server/domain/vocabulary";
import { JsonObject, Label, MAX_LABEL, MAX_TEXT, SessionId } from "../schemas-common";
import { jsonTextOf } from "./redaction";

/** Log and reasoning text, state and skill documents, plans: a whole agent response fits; 1 MB of UTF-8 at most. */
export const MAX_CONTENT_BYTES = 1_048_576;
export const MAX_BATCH_ROWS = 1000;
export const MAX_PAGE = 500;
export const PLAN_PHASE_STATUSES = ["pending", "in_progress", "completed", "blocked"] as const;

const fitsBytes = (max: number) => (text: string) => Buffer.byteLength(text, "utf8") <= max;
const tooLarge = { message: "must be at most 1 MB", params: { rule: "log.content_too_large" } };

/** Log, reasoning and plan text: not blank, at most 1 MB once encoded as UTF-8. */
export const Content = z
  .string()
  .refine((text) => /\S/.test(text), "must not be empty")
  .refine(fitsBytes(MAX_CONTENT_BYTES), tooLarge);

/** JSON given as text (BAZINGA's command line) or as a value (the API); checked to be JSON and within `maxChars`. */
export function jsonDocument(maxChars: number) {
  return z.unknown().superRefine((value, ctx) => {
    const text = jsonTextOf(value);
    if (text === null) ctx.addIssue({ code: "custom", message: "must be JSON (an object, an array, or JSON text)", params: { rule: "log.invalid_json" } });
    else if (text.length > maxChars)
      ctx.addIssue({ code: "custom", message: `must be at most ${maxChars} characters of JSON`, params: { rule: "log.content_too_large" } });
  });
}

const Iteration = z.number().int().min(0).max(1_000_000);
const References = z.array(z.string().trim().min(1).max(2000)).max(200);
/** Context routing matches agent types case-insensitively, as BAZINGA does. */
const AgentTypeKey = Label.toLowerCase();

const InteractionFields = {
  agentType: Label,
  content: Content,
  iteration: Iteration.nullish(),
  agentId: Label.nullish(),
  groupId: Label.nullish(),
};
const ReasoningFields = {
  agentType: Label,
  phase: z.enum(REASONING_PHASES),
  content: Content,
  /** A task group, or `global` for session-wide reasoning. */
  groupId: Label.default("global"),
  confidence: z.enum(CONFIDENCE_LEVELS).nullish(),
  references: References.nullish(),
  iteration: Iteration.nullish(),
  agentId: Label.nullish(),
};
const EventFields = {
  /** e.g. `pm_bazinga`, `validator_verdict`, `tl_review`: ordinary subtypes here. */
  subtype: Label,
  payload: jsonDocument(MAX_TEXT).optional(),
  groupId: Label.default("global"),
  /** A repeated key for the same session, subtype and group stores nothing new. */
  idempotencyKey: Label.nullish(),
  agentType: Label.default("system"),
  agentId: Label.nullish(),
  iteration: Iteration.nullish(),
  /** Defaults to `Event: <subtype>`, as BAZINGA writes it. */
  content: Content.optional(),
};
const TokenFields = {
  agentType: Label,
  tokens: z.number().int().min(0).max(1_000_000_000),
  agentId: Label.nullish(),
  model: Label.nullish(),
};

export const LogInteractionInput = z.object({ sessionId: SessionId, ...InteractionFields }).strict();
export type LogInteractionInput = z.input<typeof LogInteractionInput>;

export const SaveReasoningInput = z.object({ sessionId: SessionId, ...ReasoningFields }).strict();
export type SaveReasoningInput = z.input<typeof SaveReasoningInput>;

export const SaveEventInput = z.object({ sessionId: SessionId, ...EventFields }).strict();
export type SaveEventInput = z.input<typeof SaveEventInput>;

export const LogTokensInput = z.object({ sessionId: SessionId, ...TokenFields }).strict();
export type LogTokensInput = z.input<typeof LogTokensInput>;

export const BatchRow = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("interaction"), ...InteractionFields }).strict(),
  z.object({ kind: z.literal("reasoning"), ...ReasoningFields }).strict(),
  z.object({ kind: z.literal("event"), ...EventFields }).strict(),
  z.object({ kind: z.literal("tokens"), ...TokenFields }).strict(),
]);
export type BatchRow = z.output<typeof BatchRow>;

export const IngestBatchInput = z.object({ sessionId: SessionId, rows: z.array(BatchRow).min(1).max(MAX_BATCH_ROWS) }).strict();
export type IngestBatchInput = z.input<typeof IngestBatchInput>;

export const SaveStateInput = z
  .object({ sessionId: SessionId, stateType: z.enum(STATE_TYPES), groupId: Label.default("global"), data: jsonDocument(MAX_CONTENT_BYTES) })
  .strict();
export type SaveStateInput = z.input<typeof SaveStateInput>;

export const SaveSkillOutputInput = z
  .object({
    sessionId: SessionId,
    skillName: Label,
    data: jsonDocument(MAX_CONTENT_BYTES),
    agentType: Label.nullish(),
    groupId: Label.nullish(),
    iteration: z.number().int().min(1).max(1_000_000).default(1),
  })
  .strict();
export type SaveSkillOutputInput = z.input<typeof SaveSkillOutputInput>;

export const SaveDecisionInput = z.object({ sessionId: SessionId, decisionType: Label, data: jsonDocument(MAX_TEXT), iteration: Iteration.nullish() }).strict();
export type SaveDecisionInput = z.input<typeof SaveDecisionInput>;

/** One phase of a development plan; BAZINGA's extra keys (`description`, `requested_now`…) are kept. */
export const PlanPhase = z
  .looseObject({
    phase: z.number().int().min(1).max(10_000),
    name: Label,
    status: z.enum(PLAN_PHASE_STATUSES).default("pending"),
  })
  .refine((phase) => (jsonTextOf(phase)?.length ?? Infinity) <= MAX_TEXT, {
    message: `must be at most ${MAX_TEXT} characters as JSON`,
    params: { rule: "log.content_too_large" },
  });

export const SaveDevelopmentPlanInput = z
  .object({
    sessionId: SessionId,
    originalPrompt: Content,
    planText: Content,
    phases: z
      .array(PlanPhase)
      .min(1)
      .max(500)
      .refine((phases) => new Set(phases.map((p) => p.phase)).size === phases.length, {
        message: "phase numbers must be unique",
        params: { rule: "plan.duplicate_phase" },
      }),
    currentPhase: z.number().int().min(1).nullish(),
    /** Defaults to the number of phases. */
    totalPhases: z.number().int().min(1).max(10_000).optional(),
    metadata: JsonObject.nullish(),
  })
  .strict();
export type SaveDevelopmentPlanInput = z.input<typeof SaveDevelopmentPlanInput>;

export const UpdatePlanProgressInput = z
  .object({
    sessionId: SessionId,
    phase: z.number().int().min(1),
    status: z.enum(PLAN_PHASE_STATUSES),
    progressPercent: z.number().int().min(0).max(100).optional(),
  })
  .strict();
export type UpdatePlanProgressInput = z.input<typeof UpdatePlanProgressInput>;

export const SaveContextPackageInput = z
  .object({
    sessionId: SessionId,
    /** A task group; absent or `global` makes a session-wide package. */
    groupId: Label.nullish(),
    packageType: z.enum(CONTEXT_PACKAGE_TYPES),
    filePath: z.string().trim().min(1).max(4000),
    producerAgent: AgentTypeKey,
    /** Its first-iteration readers; none is allowed, as bazinga_db.py allows it (readers can come later). */
    consumers: z.array(AgentTypeKey).max(50),
    priority: z.enum(CONTEXT_PRIORITIES).default("medium"),
    /** Routing text for spawn prompts: stored on one line, cut to 200 characters as BAZINGA does. */
    summary: z.string().trim().min(1).max(MAX_TEXT),
    sizeBytes: z.number().int().min(0).nullish(),
    supersedesId: z.number().int().min(1).nullish(),
  })
  .strict();
export type SaveContextPackageInput = z.input<typeof SaveContextPackageInput>;

export const MarkContextConsumedInput = z
  .object({ packageId: z.number().int().min(1), agentType: AgentTypeKey, iteration: z.number().int().min(1).max(1_000_000).default(1) })
  .strict();
export type MarkContextConsumedInput = z.input<typeof MarkContextConsumedInput>;

// Reads.

const PageLimit = (fallback: number) => z.number().int().min(1).max(MAX_PAGE).default(fallback);

export const ListLogsInput = z
  .object({
    sessionId: SessionId,
    logType: z.enum(LOG_TYPES).optional(),
    agentType: Label.optional(),
    agentId: Label.optional(),
    groupId: Label.optional(),
    reasoningPhase: z.enum(REASONING_PHASES).optional(),
    /** Substring of the content or event payload (LIKE, wildcards escaped, ASCII case-insensitive). */
    text: z.string().min(1).max(MAX_LABEL).optional(),
    since: z.coerce.date().optional(),
    until: z.coerce.date().optional(),
    /** The last id of the previous page. */
    cursor: z.number().int().min(0).optional(),
    limit: PageLimit(100),
    order: z.enum(["asc", "desc"]).default("desc"),
  })
  .strict();
export type ListLogsInput = z.input<typeof ListLogsInput>;

export const GetReasoningInput = z
  .object({ sessionId: SessionId, groupId: Label.optional(), agentType: Label.optional(), phase: z.enum(REASONING_PHASES).optional(), limit: PageLimit(50) })
  .strict();
export type GetReasoningInput = z.input<typeof GetReasoningInput>;

export const ReasoningTimelineInput = z
  .object({ sessionId: SessionId, groupId: Label.optional(), format: z.enum(["json", "markdown"]).default("json") })
  .strict();
export type ReasoningTimelineInput = z.input<typeof ReasoningTimelineInput>;

export const CheckMandatoryPhasesInput = z.object({ sessionId: SessionId, groupId: Label, agentType: Label }).strict();
export type CheckMandatoryPhasesInput = z.input<typeof CheckMandatoryPhasesInput>;

export const GetEventsInput = z.object({ sessionId: SessionId, subtype: Label.optional(), groupId: Label.optional(), limit: PageLimit(50) }).strict();
export type GetEventsInput = z.input<typeof GetEventsInput>;

export const TokenSummaryInput = z.object({ sessionId: SessionId, by: z.enum(["agent_type", "agent_id", "model"]).default("agent_type") }).strict();
export type TokenSummaryInput = z.input<typeof TokenSummaryInput>;

export const TokensOverTimeInput = z.object({ sessionId: SessionId, bucket: z.enum(["minute", "hour", "day"]).default("hour") }).strict();
export type TokensOverTimeInput = z.input<typeof TokensOverTimeInput>;

export const GetLatestStateInput = z.object({ sessionId: SessionId, stateType: z.enum(STATE_TYPES), groupId: Label.default("global") }).strict();
export type GetLatestStateInput = z.input<typeof GetLatestStateInput>;

export const GetSkillOutputInput = z.object({ sessionId: SessionId, skillName: Label, agentType: Label.optional(), groupId: Label.optional() }).strict();
export type GetSkillOutputInput = z.input<typeof GetSkillOutputInput>;

/** Every output of some skills (newest first), optionally of one agent type and since a time (BAZINGA's get-skill-output-all, check-skill-evidence). */
export const ListSkillOutputsInput = z
  .object({
    sessionId: SessionId,
    skillNames: z.array(Label).min(1).max(100),
    agentType: Label.optional(),
    sinceMs: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(MAX_PAGE).default(MAX_PAGE),
  })
  .strict();
export type ListSkillOutputsInput = z.input<typeof ListSkillOutputsInput>;

export const GetContextPackagesInput = z
  .object({
    sessionId: SessionId,
    groupId: Label,
    agentType: AgentTypeKey,
    limit: z.number().int().min(1).max(MAX_PAGE).default(3),
    includeConsumed: z.boolean().default(false),
  })
  .strict();
export type GetContextPackagesInput = z.input<typeof GetContextPackagesInput>;

export const GetDevelopmentPlanInput = z.object({ sessionId: SessionId }).strict();
export type GetDevelopmentPlanInput = z.input<typeof GetDevelopmentPlanInput>;
