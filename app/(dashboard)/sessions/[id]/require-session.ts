import { notFound } from "next/navigation";
import { getQueryClient, getViewer, trpc } from "@/app/trpc/server";
import { isMissingSession } from "./session-id";

/**
 * The session, or the 404 page; null for a signed-out visitor, whom the dashboard's layout sends to
 * sign in (a read for them would fail and be logged as a server error). The layout and the page
 * render in parallel and share the request's query client, so the row is read once; the page
 * waits for it before it prefetches anything, so an unknown id never starts queries that can only fail.
 */
export async function requireSession(sessionId: string) {
  if (!(await getViewer())) return null;
  try {
    return await getQueryClient().fetchQuery(trpc.session.get.queryOptions({ id: sessionId }));
  } catch (error) {
    if (isMissingSession(error)) notFound();
    throw error;
  }
}
