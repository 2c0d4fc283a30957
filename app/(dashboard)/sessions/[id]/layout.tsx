import type { ReactNode } from "react";
import { HydrateClient, prefetch, trpc } from "@/app/trpc/server";
import { SessionHeader } from "./session-header";
import { SessionTabs } from "./session-tabs";
import { COMPLETION_HISTORY_LIMIT } from "./limits";
import { requireSession } from "./require-session";
import { sessionIdOf } from "./session-id";

/** Every session view (overview, goals, logs, tokens) under one header: who, what, and whether it may complete. */
export default async function SessionLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const sessionId = await sessionIdOf(params);
  if (!(await requireSession(sessionId))) return null;
  await prefetch(trpc.completion.preview.queryOptions({ sessionId }), trpc.completion.list.queryOptions({ sessionId, limit: COMPLETION_HISTORY_LIMIT }));
  return (
    <div className="space-y-4">
      <HydrateClient>
        <SessionHeader sessionId={sessionId} />
      </HydrateClient>
      <SessionTabs sessionId={sessionId} />
      {children}
    </div>
  );
}
