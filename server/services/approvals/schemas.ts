import { z } from "zod";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";
import { TaskKey } from "../task/schemas";
import { Label, SessionId } from "../schemas-common";

/** The inbox's filters: shared by the list and the count, so "N match" counts what the list shows. */
const InboxFilter = {
  /** Only this session's blocked tasks. */
  sessionId: SessionId.optional(),
  /** Only tasks of sessions from this source. */
  source: z.enum(SESSION_SOURCES, { error: `must be one of ${SESSION_SOURCES.join(", ")}` }).optional(),
  /** Only tasks that have waited at least this many hours since they were blocked. */
  minAgeHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 366)
    .optional(),
  /** true: only tasks with a pending reset request; false: only those without. */
  resetRequested: z.boolean().optional(),
  /** Only tasks blocked by this actor (the agent label or person recorded as the blocker). */
  blockedBy: Label.optional(),
};

export const InboxInput = z
  .object({
    ...InboxFilter,
    /** The previous page's `nextCursor` (null or absent for the first page). */
    cursor: z.string().min(1).max(300).nullish(),
    /** Sent by tRPC's infinite queries; the inbox pages forward only. */
    direction: z.enum(["forward"], { error: 'must be "forward": the inbox pages forward only' }).optional(),
    /** The dashboard's first page (app/(dashboard)/approvals/inbox-view.ts says why 20). */
    limit: z.number().int().min(1).max(200).default(20),
  })
  .strict();
export type InboxInput = z.input<typeof InboxInput>;

export const InboxCountInput = z.object(InboxFilter).strict();
export type InboxCountInput = z.input<typeof InboxCountInput>;

/** The most tasks one bulk decision may name: each is its own transaction, and the answer lists each. */
export const MAX_BULK_TASKS = 100;

/** Several blocked tasks decided at once with one reason (`task.approveResets`, `task.declineResets`). */
export const DecideResetsInput = z
  .object({
    tasks: z
      .array(
        z
          .object({
            sessionId: SessionId,
            key: TaskKey,
            /** The version the person saw: a task moved since is refused as a conflict, not decided blind. */
            expectedVersion: z.number().int().min(1).optional(),
          })
          .strict(),
      )
      .min(1, "name at least one task")
      .max(MAX_BULK_TASKS, `at most ${MAX_BULK_TASKS} tasks at once`)
      .refine((tasks) => new Set(tasks.map((t) => `${t.sessionId}\u0000${t.key}`)).size === tasks.length, "names the same task twice"),
    /** One reason for every task, recorded on each move. */
    reason: z.string().trim().min(1, "a reason is required").max(4000),
  })
  .strict();
export type DecideResetsInput = z.input<typeof DecideResetsInput>;
