import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { LiveProvider } from "@/app/live/live-provider";
import { RenderedAtProvider } from "@/app/ui/time";
import { getLiveFrom, getNeedsSetup, getRenderedAt, getViewer } from "@/app/trpc/server";
import { AppHeader } from "./app-header";
import { ViewerProvider } from "./viewer";

export const dynamic = "force-dynamic";

/** Every dashboard page needs a signed-in person; a fresh install sends its first visitor to set up. */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const viewer = await getViewer();
  if (!viewer) redirect((await getNeedsSetup()) ? "/setup" : "/sign-in");
  const liveFrom = await getLiveFrom();
  return (
    <ViewerProvider viewer={viewer}>
      <RenderedAtProvider at={getRenderedAt()}>
        <LiveProvider from={liveFrom}>
          <a
            href="#main"
            className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 dark:focus:bg-zinc-900"
          >
            Skip to content
          </a>
          <AppHeader />
          <main id="main" className="mx-auto max-w-7xl px-4 py-6">
            {children}
          </main>
        </LiveProvider>
      </RenderedAtProvider>
    </ViewerProvider>
  );
}
