import { z } from "zod";
import { SessionId } from "../schemas-common";

export const CheckCompletionInput = z.object({ sessionId: SessionId, claimedVerdict: z.string().max(200).optional() }).strict();
export type CheckCompletionInput = z.infer<typeof CheckCompletionInput>;

export const PreviewCompletionInput = z.object({ sessionId: SessionId }).strict();
export type PreviewCompletionInput = z.infer<typeof PreviewCompletionInput>;
