import type { Metadata } from "next";
import { HydrateClient, getViewer, prefetch, trpc } from "@/app/trpc/server";
import { SessionsClient } from "./sessions-client";
import { parseSessionsView, toListInput } from "./sessions-view";

export const metadata: Metadata = { title: "Sessions · Proofgate" };

/** Every session, filtered and paged by what the address says; the first page is fetched here, in-process. */
export default async function SessionsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // The layout sends a signed-out visitor to sign in, but pages render beside it: a read started for
  // them would fail and be logged as a server error.
  if (!(await getViewer())) return null;
  const { view, problems } = parseSessionsView(await searchParams);
  await prefetch(trpc.session.list.queryOptions(toListInput(view)));
  return (
    <div>
      <header className="mb-4">
        <h1 className="text-2xl font-semibold">Sessions</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Every agent session, newest first, with its progress as it happens.</p>
      </header>
      <HydrateClient>
        <SessionsClient view={view} problems={problems} />
      </HydrateClient>
    </div>
  );
}
