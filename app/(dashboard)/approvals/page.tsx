import { HydrateClient, getQueryClient, trpc } from "@/app/trpc/server";
import { ApprovalsClient } from "./approvals-client";
import { BLOCKED_SESSIONS_INPUT } from "./inbox-input";

export const metadata = { title: "Approvals · Proofgate" };

/** The approval inbox: blocked tasks across sessions, waiting for a lead to approve a reset. */
export default async function ApprovalsPage() {
  const sessions = await getQueryClient().fetchQuery(trpc.session.list.queryOptions(BLOCKED_SESSIONS_INPUT));
  // Awaited, so the first render already holds every item (the client does not suspend on them).
  await Promise.all(sessions.items.map((session) => getQueryClient().fetchQuery(trpc.task.list.queryOptions({ sessionId: session.id, status: "blocked" }))));
  return (
    <div className="space-y-4">
      <header>
        <h1 className="text-2xl font-semibold">Approvals</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Blocked tasks across sessions wait here until a lead approves a reset. Reset requests come first, then the longest-waiting.</p>
      </header>
      <HydrateClient>
        <ApprovalsClient />
      </HydrateClient>
    </div>
  );
}
