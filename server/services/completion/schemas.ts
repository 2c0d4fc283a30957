import { z } from "zod";
import { SessionId } from "../schemas-common";

export const CheckCompletionInput = z.object({ sessionId: SessionId, claimedVerdict: z.string().max(200).optional() }).strict();
export type CheckCompletionInput = z.infer<typeof CheckCompletionInput>;

export const ListCompletionChecksInput = z.object({ sessionId: SessionId, limit: z.number().int().min(1).max(500).optional() }).strict();
export type ListCompletionChecksInput = z.infer<typeof ListCompletionChecksInput>;

export const PreviewCompletionInput = z.object({ sessionId: SessionId }).strict();
export type PreviewCompletionInput = z.infer<typeof PreviewCompletionInput>;
