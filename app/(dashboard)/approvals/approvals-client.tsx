"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { type OpenMove, TaskMoveDialog } from "@/app/components/task-actions";
import { useCanMove } from "@/app/(dashboard)/viewer";
import { Button } from "@/app/ui/button";
import { AddressProblems } from "@/app/ui/filter-bar";
import { LoadingBlock, QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import type { ResetDecision } from "@/server/services/approvals/decide";
import { ApprovalCard, cardId } from "./approval-card";
import { type BulkTarget, BulkDecisionDialog, tasksWord } from "./bulk-dialog";
import { InboxFilters } from "./inbox-filters";
import { type InboxView, hasFilters, inboxHref } from "./inbox-view";
import { Shortcuts } from "./shortcuts";
import { type ApprovalItem, useInbox } from "./use-inbox";
import { useShortcuts } from "./use-shortcuts";

const sameTask = (item: ApprovalItem, open: OpenMove) => item.session.id === open.sessionId && item.key === open.key;
const target = (item: ApprovalItem): BulkTarget => ({ sessionId: item.session.id, key: item.key, title: item.title, version: item.version });

export function ApprovalsClient({ view, problems }: { view: InboxView; problems: string[] }) {
  const router = useRouter();
  const [navigating, startNavigation] = useTransition();
  const go = (next: InboxView) => startNavigation(() => router.push(inboxHref(next), { scroll: false }));
  return (
    <>
      <InboxFilters view={view} go={go} />
      <AddressProblems problems={problems} />
      <div aria-busy={navigating} className={navigating ? "opacity-60 transition-opacity" : undefined}>
        <Inbox view={view} />
      </div>
    </>
  );
}

function Inbox({ view }: { view: InboxView }) {
  const { loaded, queries, hasMore, loadMore, loadingMore } = useInbox(view);
  const canApprove = useCanMove("approve_reset");
  const canDecline = useCanMove("decline_reset");
  const canDecide = canApprove || canDecline;
  const [open, setOpen] = useState<OpenMove | null>(null);
  const [bulk, setBulk] = useState<{ decision: ResetDecision; tasks: BulkTarget[] } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [focused, setFocused] = useState<number | null>(null);
  const items = loaded?.items ?? [];
  // Only what is still in the list counts as selected: a task decided elsewhere leaves the selection with the list.
  const chosen = items.filter((item) => selected.has(item.taskId));

  const toggle = (taskId: number) =>
    setSelected((now) => {
      const next = new Set(now);
      if (!next.delete(taskId)) next.add(taskId);
      return next;
    });
  const focusAt = (index: number) => {
    const item = items[Math.max(0, Math.min(items.length - 1, index))];
    if (!item) return;
    setFocused(item.taskId);
    const card = document.getElementById(cardId(item.taskId));
    card?.focus();
    card?.scrollIntoView({ block: "nearest" });
  };
  const current = items.find((item) => item.taskId === focused);
  const decideOne = (item: ApprovalItem, move: ResetDecision) => {
    setMessage(null);
    setOpen({ sessionId: item.session.id, key: item.key, move, version: item.version });
  };
  const decideChosen = (decision: ResetDecision) => {
    setMessage(null);
    setBulk({ decision, tasks: chosen.map(target) });
  };
  /** `a` / `d`: the selected tasks when some are selected, else the focused one. */
  const decide = (decision: ResetDecision) => {
    if (decision === "approve_reset" ? !canApprove : !canDecline) return;
    if (chosen.length > 0) return decideChosen(decision);
    if (current && (decision === "approve_reset" || current.resetRequest)) decideOne(current, decision);
  };
  const index = current ? items.indexOf(current) : -1;
  // Focus stays on the task the person was on: when a dialog closes (the browser drops it on the
  // page), and when a live update reorders the list (moving a focused element blurs it).
  const order = items.map((item) => item.taskId).join(",");
  useEffect(() => {
    if (focused === null || open || bulk) return;
    if (document.activeElement === null || document.activeElement === document.body) document.getElementById(cardId(focused))?.focus({ preventScroll: true });
  }, [order, focused, open, bulk]);
  useShortcuts(
    open || bulk
      ? {}
      : {
          j: () => focusAt(index + 1),
          k: () => focusAt(index < 0 ? 0 : index - 1),
          ...(canDecide
            ? {
                a: () => decide("approve_reset"),
                d: () => decide("decline_reset"),
                x: () => current && toggle(current.taskId),
              }
            : {}),
        },
  );

  if (!loaded) {
    return (
      <QueryFallback query={queries} errorTitle="Could not load the inbox">
        <LoadingBlock label="Loading the inbox…" className="h-40" />
      </QueryFallback>
    );
  }
  const { blocked, resetRequested } = loaded.count;
  const openTask = open ? items.find((item) => sameTask(item, open)) : undefined;
  const allChosen = items.length > 0 && chosen.length === items.length;

  return (
    <section aria-label="Blocked tasks" className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <p aria-live="polite" data-testid="inbox-count" data-blocked={blocked} className="text-sm">
          <span className="font-semibold tabular-nums">{blocked}</span> blocked task{blocked === 1 ? "" : "s"}{" "}
          {hasFilters(view) ? (blocked === 1 ? "matches" : "match") : "waiting"}
          {" · "}
          <span className="font-semibold tabular-nums">{resetRequested}</span> with a reset request
        </p>
        <p role="status" aria-live="polite" className="text-sm text-emerald-800 dark:text-emerald-300">
          {message}
        </p>
      </div>
      <Shortcuts canDecide={canDecide} />
      {canDecide && items.length > 0 && (
        <div
          role="toolbar"
          aria-label="Decide several tasks"
          className="flex flex-wrap items-center gap-2 rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-900"
        >
          <label className="mr-auto flex items-center gap-2">
            <input
              type="checkbox"
              className="size-4 accent-sky-700"
              checked={allChosen}
              ref={(box) => {
                if (box) box.indeterminate = chosen.length > 0 && !allChosen;
              }}
              onChange={() => setSelected(allChosen ? new Set() : new Set(items.map((item) => item.taskId)))}
            />
            Select all {items.length} shown
          </label>
          <span data-testid="selected-count" className="tabular-nums">
            {chosen.length} selected
          </span>
          {canDecline && (
            <Button variant="danger" aria-haspopup="dialog" disabled={chosen.length === 0} onClick={() => decideChosen("decline_reset")}>
              Decline selected
            </Button>
          )}
          {canApprove && (
            <Button variant="secondary" aria-haspopup="dialog" disabled={chosen.length === 0} onClick={() => decideChosen("approve_reset")}>
              Approve selected
            </Button>
          )}
        </div>
      )}
      {items.length === 0 ? (
        hasFilters(view) ? (
          <EmptyState title="No blocked task matches these filters">Change or reset the filters above to see the other blocked tasks.</EmptyState>
        ) : (
          <EmptyState title="Nothing is waiting for approval">
            A task lands here when a verifier blocks a claim (<Code>proofgate block &lt;session&gt; &lt;task&gt; --failures …</Code>); an agent or orchestrator
            can then ask for a reset with <Code>request-reset</Code>.
          </EmptyState>
        )
      ) : (
        <ol className="space-y-3">
          {items.map((item) => (
            <li key={item.taskId}>
              <ApprovalCard
                item={item}
                focused={item.taskId === focused}
                onFocus={() => setFocused(item.taskId)}
                selected={canDecide ? selected.has(item.taskId) : undefined}
                onSelect={() => toggle(item.taskId)}
                onApprove={() => decideOne(item, "approve_reset")}
                onDecline={() => decideOne(item, "decline_reset")}
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
            openTask && {
              sessionId: openTask.session.id,
              key: openTask.key,
              title: openTask.title,
              status: "blocked",
              version: openTask.version,
              claimedBy: openTask.claimant?.label ?? null,
            }
          }
          onClose={() => setOpen(null)}
          onDone={(done) => {
            setOpen(null);
            setMessage(`${open.sessionId}: ${done}`);
          }}
        />
      )}
      {bulk && (
        <BulkDecisionDialog
          decision={bulk.decision}
          tasks={bulk.tasks}
          onClose={() => setBulk(null)}
          onDone={(report) => {
            setSelected(new Set());
            const verb = bulk.decision === "approve_reset" ? "approved" : "declined";
            setMessage(`${report.applied} of ${tasksWord(report.results.length)} ${verb}${report.refused ? `, ${report.refused} refused` : ""}`);
          }}
        />
      )}
    </section>
  );
}
