/**
 * Goal contracts: what "the goal is achieved" means, stated as acceptance criteria before any
 * attempt is judged, so that a well-evidenced result that misses the goal cannot pass as success.
 */
import picomatch from "picomatch";
import { z } from "zod";
import { ValidationError, fieldPath } from "./errors";

export const ACCEPTANCE_CRITERION_KINDS = ["metric_threshold", "marker_required", "artifact_exists", "finding_count"] as const;
export type AcceptanceCriterionKind = (typeof ACCEPTANCE_CRITERION_KINDS)[number];

export const COMPARISON_OPS = [">=", ">", "<=", "<", "==", "!="] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

export interface AcceptanceCriterion {
  id: string;
  kind: AcceptanceCriterionKind;
  description?: string;
  metric?: string;
  op?: ComparisonOp;
  target?: number;
  marker?: string;
  artifactPattern?: string;
  minCount?: number;
}

export interface GoalContract {
  version: 1;
  goalText: string;
  goalType?: string | null;
  acceptanceCriteria: AcceptanceCriterion[];
  maxGoalAttempts: number;
}

export const DEFAULT_MAX_GOAL_ATTEMPTS = 3;

/** The fields each kind needs; any other criterion field is refused for that kind. */
const KIND_FIELDS: Record<AcceptanceCriterionKind, readonly (keyof AcceptanceCriterion)[]> = {
  metric_threshold: ["metric", "op", "target"],
  marker_required: ["marker"],
  artifact_exists: ["artifactPattern"],
  finding_count: ["minCount"],
};
const CRITERION_FIELDS = new Set<string>(["id", "kind", "description", ...Object.values(KIND_FIELDS).flat()]);
const CONTRACT_FIELDS = new Set(["version", "goalText", "goalType", "acceptanceCriteria", "maxGoalAttempts"]);

/** Whether picomatch can compile `pattern`; unbalanced brackets and a dangling escape are refused. */
export function isValidGlob(pattern: string): boolean {
  try {
    // picomatch compiles a dangling backslash to a regex that matches nothing rather than throwing.
    return picomatch.makeRe(pattern, { strictBrackets: true, dot: true }).source !== "$^";
  } catch {
    return false;
  }
}

const id = z.string().trim().min(1);
const description = z.string().trim().optional();

const MetricThresholdInput = z.strictObject({
  id,
  kind: z.literal("metric_threshold"),
  description,
  metric: z.string().trim().min(1),
  op: z.enum(COMPARISON_OPS),
  target: z.number(), // zod 4 refuses NaN and ±Infinity here
});
const MarkerRequiredInput = z.strictObject({ id, kind: z.literal("marker_required"), description, marker: z.string().trim().min(1) });
const ArtifactExistsInput = z.strictObject({
  id,
  kind: z.literal("artifact_exists"),
  description,
  artifactPattern: z
    .string()
    .trim()
    .min(1)
    .refine(isValidGlob, {
      message: "is not a valid glob (unbalanced bracket or dangling escape)",
      params: { rule: "goal_contract.artifact_pattern_invalid" },
    }),
});
const FindingCountInput = z.strictObject({ id, kind: z.literal("finding_count"), description, minCount: z.number().int().min(1) });

export const AcceptanceCriterionInput = z.discriminatedUnion("kind", [MetricThresholdInput, MarkerRequiredInput, ArtifactExistsInput, FindingCountInput]);
export type AcceptanceCriterionInput = z.infer<typeof AcceptanceCriterionInput>;

export const GoalContractInput = z
  .strictObject({
    version: z.literal(1).optional(),
    goalText: z.string().trim().min(1),
    goalType: z.string().trim().nullable().optional(),
    acceptanceCriteria: z.array(AcceptanceCriterionInput).min(1),
    maxGoalAttempts: z.number().int().min(1).max(100).optional(),
  })
  .superRefine((contract, ctx) => {
    const seen = new Set<string>();
    contract.acceptanceCriteria.forEach((criterion, index) => {
      if (seen.has(criterion.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["acceptanceCriteria", index, "id"],
          message: `duplicate criterion id ${JSON.stringify(criterion.id)}`,
          params: { rule: "goal_contract.criterion_id_duplicate" },
        });
      }
      seen.add(criterion.id);
    });
  });
export type GoalContractInput = z.infer<typeof GoalContractInput>;

/**
 * Validates a goal contract and returns it normalized (trimmed strings, version 1, goalType null
 * when absent, maxGoalAttempts defaulted to 3, only the fields of each criterion's kind).
 * @throws ValidationError naming the first offending field (e.g. `acceptanceCriteria[1].target`)
 *   and the rule it broke (e.g. `goal_contract.metric_threshold_requires_target`).
 */
export function validateGoalContract(input: unknown): GoalContract {
  const parsed = GoalContractInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (!issue) throw new ValidationError("goalContract", "goal_contract.invalid", "invalid goal contract");
    throw issueToValidationError(issue, input);
  }
  const contract = parsed.data;
  return {
    version: 1,
    goalText: contract.goalText,
    goalType: contract.goalType ? contract.goalType : null,
    acceptanceCriteria: contract.acceptanceCriteria.map(normalizeCriterion),
    maxGoalAttempts: contract.maxGoalAttempts ?? DEFAULT_MAX_GOAL_ATTEMPTS,
  };
}

function normalizeCriterion(input: AcceptanceCriterionInput): AcceptanceCriterion {
  const criterion: AcceptanceCriterion = { id: input.id, kind: input.kind };
  if (input.description) criterion.description = input.description;
  return { ...criterion, ...pick(input, KIND_FIELDS[input.kind]) };
}

function pick(source: object, keys: readonly string[]): Partial<AcceptanceCriterion> {
  const entries = Object.entries(source).filter(([key]) => keys.includes(key));
  return Object.fromEntries(entries) as Partial<AcceptanceCriterion>;
}

/** `["acceptanceCriteria", 1, "target"]` → `acceptanceCriteria[1].target`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  return fieldPath(path, "goalContract");
}

const FIELD_RULES: Record<string, string> = {
  version: "goal_contract.version_unsupported",
  goalText: "goal_contract.goal_text_required",
  goalType: "goal_contract.goal_type_invalid",
  acceptanceCriteria: "goal_contract.criteria_required",
  maxGoalAttempts: "goal_contract.max_goal_attempts_out_of_range",
  id: "goal_contract.criterion_id_required",
  kind: "goal_contract.criterion_kind_invalid",
  description: "goal_contract.description_invalid",
  metric: "goal_contract.metric_threshold_requires_metric",
  op: "goal_contract.metric_threshold_requires_op",
  target: "goal_contract.metric_threshold_requires_target",
  marker: "goal_contract.marker_required_requires_marker",
  artifactPattern: "goal_contract.artifact_exists_requires_pattern",
  minCount: "goal_contract.finding_count_requires_min_count",
};

const FIELD_MESSAGES: Record<string, string> = {
  version: "must be 1",
  goalText: "must be a non-empty string",
  acceptanceCriteria: "must list at least one acceptance criterion",
  maxGoalAttempts: "must be an integer from 1 to 100",
  id: "must be a non-empty string",
  kind: `must be one of ${ACCEPTANCE_CRITERION_KINDS.join(", ")}`,
  metric: "metric_threshold needs the metric's name",
  op: `metric_threshold needs op, one of ${COMPARISON_OPS.join(" ")}`,
  target: "metric_threshold needs a finite number target",
  marker: "marker_required needs a non-empty marker, e.g. METRIC:baseline_accuracy",
  artifactPattern: "artifact_exists needs a non-empty glob, e.g. *.pkl",
  minCount: "finding_count needs an integer minCount of at least 1",
};

function issueToValidationError(issue: z.core.$ZodIssue, input: unknown): ValidationError {
  if (issue.path.length === 0 && issue.code === "invalid_type") {
    return new ValidationError("goalContract", "goal_contract.not_an_object", "must be an object");
  }
  if (issue.code === "unrecognized_keys") return unknownFieldError(issue.path, issue.keys[0] ?? "", input);
  const field = formatFieldPath(issue.path);
  const rule = (issue.code === "custom" && typeof issue.params?.rule === "string" && issue.params.rule) || ruleFor(issue.path);
  const last = issue.path.at(-1);
  const message = issue.code === "custom" ? issue.message : (typeof last === "string" && FIELD_MESSAGES[last]) || issue.message;
  return new ValidationError(field, rule, message);
}

function ruleFor(path: readonly PropertyKey[]): string {
  const last = path.at(-1);
  // An element of acceptanceCriteria that is not an object ends its path with the index.
  if (typeof last === "number") return "goal_contract.criterion_invalid";
  return FIELD_RULES[String(last)] ?? "goal_contract.invalid";
}

function unknownFieldError(path: readonly PropertyKey[], key: string, input: unknown): ValidationError {
  const field = formatFieldPath([...path, key]);
  if (path.length === 0) {
    const camel = key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
    const hint = CONTRACT_FIELDS.has(camel) && camel !== key ? ` (did you mean ${camel}?)` : "";
    return new ValidationError(field, "goal_contract.unknown_field", `is not a goal contract field${hint}`);
  }
  if (CRITERION_FIELDS.has(key)) {
    const kind = kindAt(input, path);
    return new ValidationError(field, "goal_contract.field_not_allowed_for_kind", `does not belong to a ${kind} criterion`);
  }
  return new ValidationError(field, "goal_contract.unknown_field", "is not an acceptance criterion field");
}

function kindAt(input: unknown, path: readonly PropertyKey[]): string {
  let node: unknown = input;
  for (const segment of path) node = (node as Record<PropertyKey, unknown> | undefined)?.[segment];
  const kind = (node as { kind?: unknown } | undefined)?.kind;
  return typeof kind === "string" ? kind : "criterion";
}
