import { z } from "zod";
import { CRITERION_STATUSES, MAX_CRITERION_LENGTH } from "@/server/domain/criteria";
import { JsonObject, SessionId, Text } from "../schemas-common";

const CriterionText = z.string().trim().min(1, "must not be empty").max(MAX_CRITERION_LENGTH);

export const CriterionItem = z
  .object({
    criterion: CriterionText,
    status: z.enum(CRITERION_STATUSES).optional(),
    actual: Text.nullish(),
    evidence: Text.nullish(),
    requiredForCompletion: z.boolean().optional(),
    /** Order in the list: 1 first (BAZINGA's PM numbers its criteria); unset sorts last. */
    priority: z.number().int().min(-1_000_000).max(1_000_000).nullish(),
    /** Anything else the orchestrator attached to the criterion, stored as given. */
    metadata: JsonObject.nullish(),
    supersedes: CriterionText.nullish(),
  })
  .strict();

/** A session's criteria (`criteria.list`). */
export const ListCriteriaInput = z.object({ sessionId: SessionId }).strict();
export type ListCriteriaInput = z.infer<typeof ListCriteriaInput>;

export const SaveCriteriaInput = z.object({ sessionId: SessionId, criteria: z.array(CriterionItem).min(1).max(500) }).strict();
export type SaveCriteriaInput = z.infer<typeof SaveCriteriaInput>;

export const UpdateCriterionInput = z
  .object({
    sessionId: SessionId,
    criterion: CriterionText,
    status: z.enum(CRITERION_STATUSES).optional(),
    actual: Text.nullish(),
    evidence: Text.nullish(),
  })
  .strict()
  .refine((v) => v.status !== undefined || v.actual !== undefined || v.evidence !== undefined, {
    message: "give at least one of status, actual, evidence",
    path: ["status"],
  });
export type UpdateCriterionInput = z.infer<typeof UpdateCriterionInput>;

export const VerifyCriterionInput = z
  .object({ sessionId: SessionId, criterion: CriterionText, status: z.enum(CRITERION_STATUSES), actual: Text.nullish(), evidence: Text.nullish() })
  .strict();
export type VerifyCriterionInput = z.infer<typeof VerifyCriterionInput>;

export const SetRequiredInput = z.object({ sessionId: SessionId, criterion: CriterionText, required: z.boolean() }).strict();
export type SetRequiredInput = z.infer<typeof SetRequiredInput>;
