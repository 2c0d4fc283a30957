import { tracked } from "@trpc/server";
import { z } from "zod";
import { ListEventsInput, listEventsAfter, latestEventId } from "@/server/services/events/list";
import { SessionId } from "@/server/services/schemas-common";
import { SearchEventsInput } from "@/server/services/events/schemas";
import { searchEvents } from "@/server/services/events/search";
import { listEventTypes } from "@/server/services/events/types";
import { eventTail } from "../live";
import { actionProcedure, authedProcedure, router } from "../trpc";

const PAGE = 500;

export const eventsRouter = router({
  list: authedProcedure.input(ListEventsInput).query(async ({ ctx, input }) => listEventsAfter(ctx.db, input)),
  latestId: authedProcedure.query(async ({ ctx }) => latestEventId(ctx.db)),
  /** The audit log (/activity): filtered, newest first, keyset pages by id. */
  search: actionProcedure("read")
    .input(SearchEventsInput)
    .query(async ({ ctx, input }) => searchEvents(ctx.db, input)),
  /** The event types the log holds (the audit log's type filter). */
  types: actionProcedure("read").query(async ({ ctx }) => listEventTypes(ctx.db)),
  /**
   * Live events over SSE. Each event is sent with its id; after a reconnect the client sends the
   * last id it saw (`lastEventId`) and the stream resumes right after it: no gap, no duplicate.
   * Without one, it starts from now.
   */
  stream: authedProcedure
    .input(z.object({ sessionId: SessionId.optional(), lastEventId: z.coerce.number().int().min(0).nullish() }).strict())
    .subscription(async function* ({ ctx, input, signal }) {
      let last = input.lastEventId ?? (await latestEventId(ctx.db));
      const tail = eventTail(ctx.db);
      while (!signal?.aborted) {
        // Read the newest id first: every event up to it is either in this page or not this
        // session's, so a filtered subscriber may skip past it. Without that, another session's
        // newer event would wake the wait at once, forever (a busy loop).
        const newest = await latestEventId(ctx.db);
        const rows = await listEventsAfter(ctx.db, { sessionId: input.sessionId, afterId: last, limit: PAGE });
        for (const row of rows) {
          last = row.id;
          yield tracked(String(row.id), row);
        }
        if (rows.length === PAGE) continue;
        const waitFrom = Math.max(last, newest);
        await tail.waitForNew(waitFrom, signal);
      }
    }),
});
