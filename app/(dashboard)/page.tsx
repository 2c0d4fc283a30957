import type { Metadata } from "next";
import { HydrateClient, getViewer, prefetch, trpc } from "@/app/trpc/server";
import { OverviewClient } from "./overview-client";
import { OVERVIEW_INPUT } from "./overview-queries";

export const metadata: Metadata = { title: "Overview · Proofgate" };

/** What is happening now across every session: fetched here, in-process, in one read, and kept live in the browser. */
export default async function OverviewPage() {
  // The layout sends a signed-out visitor to sign in, but pages render beside it: a read started for
  // them would fail and be logged as a server error.
  if (!(await getViewer())) return null;
  await prefetch(trpc.session.overview.queryOptions(OVERVIEW_INPUT));
  return (
    <div>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">Overview</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Completion claims, verification and gates across your agent sessions, as they happen.</p>
      </header>
      <HydrateClient>
        <OverviewClient />
      </HydrateClient>
    </div>
  );
}
