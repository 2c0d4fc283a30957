import { HydrateClient, getQueryClient, getViewer, prefetch, trpc } from "@/app/trpc/server";
import { ApprovalsClient } from "./approvals-client";
import { inboxPaging, parseInboxView, toCountInput, toInboxInput } from "./inbox-view";

export const metadata = { title: "Approvals · Proofgate" };

/** The approval inbox: blocked tasks across sessions, filtered by what the address says, waiting for a lead to decide a reset. */
export default async function ApprovalsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Signed out: the layout sends them to sign in, and a read for them would log a server error.
  if (!(await getViewer())) return null;
  const { view, problems } = parseInboxView(await searchParams);
  await Promise.all([
    getQueryClient().prefetchInfiniteQuery(trpc.task.inbox.infiniteQueryOptions(toInboxInput(view), inboxPaging)),
    prefetch(trpc.task.inboxCount.queryOptions(toCountInput(view))),
  ]);
  return (
    <div className="space-y-4">
      <header>
        <h1 className="text-2xl font-semibold">Approvals</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Blocked tasks across sessions wait here until a lead approves a reset. Reset requests come first, then the longest-waiting.
        </p>
      </header>
      <HydrateClient>
        <ApprovalsClient view={view} problems={problems} />
      </HydrateClient>
    </div>
  );
}
