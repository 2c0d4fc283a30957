import { HydrateClient, prefetch, trpc } from "@/app/trpc/server";
import { SessionOverview } from "./session-overview";
import { requireSession } from "./require-session";
import { sessionIdOf } from "./session-id";

/** The session's tasks by state, its criteria with their history, and its completion checks. */
export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const sessionId = await sessionIdOf(params);
  if (!(await requireSession(sessionId))) return null;
  await prefetch(
    trpc.task.board.queryOptions({ sessionId }),
    trpc.criteria.list.queryOptions({ sessionId }),
    trpc.runtime.activity.queryOptions({ sessionId }),
  );
  return (
    <HydrateClient>
      <SessionOverview sessionId={sessionId} />
    </HydrateClient>
  );
}
