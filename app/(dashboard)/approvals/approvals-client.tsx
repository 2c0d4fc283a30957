"use client";

import { useState } from "react";
import { type OpenMove, TaskMoveDialog } from "@/app/components/task-actions";
import { Button } from "@/app/ui/button";
import { LoadingBlock, QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { ApprovalCard } from "./approval-card";
import { type ApprovalItem, useInbox } from "./use-inbox";

const sameTask = (item: ApprovalItem, open: OpenMove) => item.session.id === open.sessionId && item.key === open.key;

export function ApprovalsClient() {
  const { loaded, queries, hasMore, loadMore, loadingMore } = useInbox();
  const [open, setOpen] = useState<OpenMove | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  if (!loaded) {
    return (
      <QueryFallback query={queries} errorTitle="Could not load the inbox">
        <LoadingBlock label="Loading the inbox…" className="h-40" />
      </QueryFallback>
    );
  }
  const { items, count } = loaded;
  const { blocked, resetRequested } = count;
  const current = open ? items.find((item) => sameTask(item, open)) : undefined;

  return (
    <section aria-label="Blocked tasks" className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <p aria-live="polite" data-testid="inbox-count" data-blocked={blocked} className="text-sm">
          <span className="font-semibold tabular-nums">{blocked}</span> blocked task{blocked === 1 ? "" : "s"} waiting
          {" · "}
          <span className="font-semibold tabular-nums">{resetRequested}</span> with a reset request
        </p>
        <p role="status" aria-live="polite" className="text-sm text-emerald-800 dark:text-emerald-300">
          {message}
        </p>
      </div>
      {items.length === 0 ? (
        <EmptyState title="Nothing is waiting for approval">
          A task lands here when a verifier blocks a claim (<Code>npx proofgate block &lt;session&gt; &lt;task&gt; --failures …</Code>); an agent or
          orchestrator can then ask for a reset with <Code>request-reset</Code>.
        </EmptyState>
      ) : (
        <ol className="space-y-3">
          {items.map((item) => (
            <li key={item.taskId}>
              <ApprovalCard
                item={item}
                onApprove={() => {
                  setMessage(null);
                  setOpen({ sessionId: item.session.id, key: item.key, move: "approve_reset", version: item.version });
                }}
                onDecline={() => {
                  setMessage(null);
                  setOpen({ sessionId: item.session.id, key: item.key, move: "decline_reset", version: item.version });
                }}
              />
            </li>
          ))}
        </ol>
      )}
      {hasMore && (
        <div className="flex justify-center">
          <Button variant="secondary" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? "Loading…" : `Load more (${items.length} of ${blocked} shown)`}
          </Button>
        </div>
      )}
      {open && (
        <TaskMoveDialog
          open={open}
          task={
            current && {
              sessionId: current.session.id,
              key: current.key,
              title: current.title,
              status: "blocked",
              version: current.version,
              claimedBy: current.claimant?.label ?? null,
            }
          }
          onClose={() => setOpen(null)}
          onDone={(done) => {
            setOpen(null);
            setMessage(`${open.sessionId}: ${done}`);
          }}
        />
      )}
    </section>
  );
}
