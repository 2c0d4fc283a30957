import { z } from "zod";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";
import { SessionId } from "../schemas-common";

/** The most rows one page of the audit log holds (the CSV export pages through at this size). */
export const MAX_EVENT_PAGE = 1000;

/** Filters of the audit log (`/activity`): each one narrows, all of them together (AND). */
export const EventFilter = z
  .object({
    /** One event type, exactly (`task.claimed`). */
    type: z.string().trim().min(1, "must not be empty").max(100).optional(),
    /** Who acted, exactly as recorded (the agent label or the person's email). */
    actor: z.string().trim().min(1, "must not be empty").max(200).optional(),
    sessionId: SessionId.optional(),
    /** The source of the event's session; events outside any session never match. */
    source: z.enum(SESSION_SOURCES).optional(),
    /** Both inclusive. */
    from: z.date().optional(),
    to: z.date().optional(),
  })
  .strict()
  .refine((f) => !f.from || !f.to || f.from <= f.to, { path: ["to"], message: "must not be before from" });

export const SearchEventsInput = z
  .object({
    filter: EventFilter.default({}),
    /** The last (smallest) id of the previous page: this page holds the events before it. */
    cursor: z.number().int().min(1).nullish(),
    /** Sent by tRPC's infinite queries; pages only go back in time. */
    direction: z.literal("forward").optional(),
    limit: z.number().int().min(1).max(MAX_EVENT_PAGE).default(50),
  })
  .strict();
export type SearchEventsInput = z.input<typeof SearchEventsInput>;
export type EventFilter = z.input<typeof EventFilter>;
