import { z } from "zod";
import { SessionId } from "../schemas-common";

export const InboxInput = z
  .object({
    /** Only this session's blocked tasks. */
    sessionId: SessionId.optional(),
    /** The previous page's `nextCursor` (null or absent for the first page). */
    cursor: z.string().min(1).max(300).nullish(),
    /** Sent by tRPC's infinite queries; the inbox pages forward only. */
    direction: z.enum(["forward"], { error: 'must be "forward": the inbox pages forward only' }).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();
export type InboxInput = z.input<typeof InboxInput>;

export const InboxCountInput = z.object({ sessionId: SessionId.optional() }).strict();
export type InboxCountInput = z.input<typeof InboxCountInput>;
