import { notFound } from "next/navigation";
import { getQueryClient, trpc } from "@/app/trpc/server";
import { isMissingSession } from "./session-id";

/**
 * The session, or the 404 page. The layout and the page render in parallel and share the request's
 * query client, so the row is read once; the page waits for it before it prefetches anything, so
 * an unknown id never starts queries that can only fail.
 */
export async function requireSession(sessionId: string) {
  try {
    return await getQueryClient().fetchQuery(trpc.session.get.queryOptions({ id: sessionId }));
  } catch (error) {
    if (isMissingSession(error)) notFound();
    throw error;
  }
}
