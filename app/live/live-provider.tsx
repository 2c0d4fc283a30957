"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { type ReactNode, createContext, useContext, useEffect, useMemo, useRef, useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/app/trpc/client";
import { refreshAfterEvent } from "./refresh";

export type LiveEvent = inferRouterOutputs<AppRouter>["events"]["list"][number];
export type LiveStatus = "connecting" | "live" | "lost";

interface LiveState {
  status: LiveStatus;
  /** When the connection was last lost (while lost) or last came back (once live again). */
  changedAt: number | null;
  reconnected: boolean;
  subscribe: (listener: (event: LiveEvent) => void) => () => void;
}

const LiveContext = createContext<LiveState | null>(null);

/** How long a burst of events is gathered before the visible queries refetch once. */
const REFRESH_WINDOW_MS = 120;

/**
 * One SSE subscription per tab on `events.stream`. Every event marks the cached queries stale and
 * the ones on screen refetch (at most once per window; a refetch already under way is left to
 * finish rather than restarted, so a steady stream of writes cannot starve a slow query, and then
 * made once more: it may have read the ledger before the write; ./refresh.ts), so each
 * page shows the ledger as it is now without polling. After a lost connection, tRPC resumes from the last event
 * id it saw: nothing is missed, and everything is refreshed once on return. The first connection
 * starts after `from`, the newest event id when the server began reading the page's data, so a
 * write made between that render and the connection arrives too.
 */
export function LiveProvider({ from, children }: { from: number | null; children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [listeners] = useState(() => new Set<(event: LiveEvent) => void>());
  const [refresh] = useState(() => gathered(() => void refreshAfterEvent(queryClient), REFRESH_WINDOW_MS));
  const [state, setState] = useState<{ status: LiveStatus; changedAt: number | null; reconnected: boolean }>({
    status: "connecting",
    changedAt: null,
    reconnected: false,
  });

  useSubscription(
    trpc.events.stream.subscriptionOptions(from === null ? {} : { lastEventId: from }, {
      onData: (tracked) => {
        for (const listener of listeners) listener(tracked.data);
        refresh.run();
      },
      onConnectionStateChange: ({ state: connection }) => {
        const connected = connection === "pending";
        setState((previous) => {
          if (connected && previous.status !== "live") {
            const wasLost = previous.status === "lost";
            if (wasLost) refresh.run();
            return { status: "live", changedAt: wasLost ? Date.now() : previous.changedAt, reconnected: wasLost || previous.reconnected };
          }
          if (!connected && previous.status === "live") return { status: "lost", changedAt: Date.now(), reconnected: previous.reconnected };
          return previous;
        });
      },
    }),
  );

  useEffect(() => () => refresh.cancel(), [refresh]);

  const value = useMemo<LiveState>(
    () => ({
      ...state,
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    }),
    [state, listeners],
  );
  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
}

/** Runs `fn` once per window however many times it is asked to within it. */
function gathered(fn: () => void, windowMs: number) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    run() {
      timer ??= setTimeout(() => {
        timer = null;
        fn();
      }, windowMs);
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export function useLive(): LiveState {
  const live = useContext(LiveContext);
  if (!live) throw new Error("useLive must be used inside <LiveProvider>");
  return live;
}

/** Call `listener` for each live event (e.g. an activity feed that prepends rows). */
export function useLiveEvents(listener: (event: LiveEvent) => void) {
  const { subscribe } = useLive();
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => subscribe((event) => latest.current(event)), [subscribe]);
}
