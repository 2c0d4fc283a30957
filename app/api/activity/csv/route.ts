import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { openSharedLedger } from "@/db/client";
import { createRequestContext } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { getAuth } from "@/server/auth/instance";
import { MAX_EVENT_PAGE } from "@/server/services/events/schemas";
import { activityCsvName, csvRecords, csvStart } from "@/app/(dashboard)/activity/activity-csv";
import { parseActivityView, toFilter } from "@/app/(dashboard)/activity/activity-view";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Every event matching the /activity filters in the address, as CSV: all pages, not just the one on
 * screen. It pages through `events.search` (with the caller's own role, like any API call) and
 * streams each page as it is read, so a large log never sits in memory whole; keyset pages by id
 * mean events written meanwhile are neither repeated nor shift the rows.
 */
export async function GET(req: Request): Promise<Response> {
  const { view, problems } = parseActivityView(new URL(req.url).searchParams);
  if (problems.length > 0) return new Response(`${problems.join("\n")}\n`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
  const caller = createCaller(await createRequestContext(req, await openSharedLedger(), getAuth()));
  const filter = toFilter(view);
  let first;
  try {
    first = await caller.events.search({ filter, limit: MAX_EVENT_PAGE });
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    return new Response(`${error.message}\n`, { status: getHTTPStatusCodeFromError(error), headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  const encoder = new TextEncoder();
  let page = first;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(csvStart() + csvRecords(page.items)));
      } else if (page.nextCursor !== null) {
        page = await caller.events.search({ filter, cursor: page.nextCursor, limit: MAX_EVENT_PAGE });
        controller.enqueue(encoder.encode(csvRecords(page.items)));
      }
      if (page.nextCursor === null) controller.close();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${activityCsvName(view)}"`,
      "cache-control": "no-store",
    },
  });
}
