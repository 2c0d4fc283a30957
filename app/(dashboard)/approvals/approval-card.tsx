"use client";

import Link from "next/link";
import { EvidenceList, ProofpackSummary, ProofpackView } from "@/app/components/task-actions";
import { useCanMove } from "@/app/(dashboard)/viewer";
import { Badge, StatusBadge } from "@/app/ui/badge";
import { Time, formatDuration, formatUtc, useNow } from "@/app/ui/time";
import { useDetailsOpen } from "@/app/ui/use-details-open";
import css from "./approval-card.module.css";
import type { ApprovalItem } from "./use-inbox";

/** The card's element id: keyboard navigation focuses it. */
export const cardId = (taskId: number) => `approval-card-${taskId}`;

/**
 * A blocked task with everything a lead weighs before a reset: what failed, who claimed it, how long
 * it waited. Focusable (j / k move between cards); `selected` undefined means no selection offered.
 */
export function ApprovalCard({
  item,
  focused,
  onFocus,
  selected,
  onSelect,
  onApprove,
  onDecline,
}: {
  item: ApprovalItem;
  focused: boolean;
  onFocus: () => void;
  selected: boolean | undefined;
  onSelect: () => void;
  onApprove: () => void;
  onDecline: () => void;
}) {
  const canApprove = useCanMove("approve_reset");
  // Only a pending request can be declined; a blocked task nobody asked to retry just waits.
  const canDecline = useCanMove("decline_reset") && item.resetRequest !== null;
  const nameId = `approval-${item.taskId}`;
  return (
    <article
      id={cardId(item.taskId)}
      tabIndex={-1}
      onFocus={onFocus}
      aria-labelledby={nameId}
      aria-current={focused ? "true" : undefined}
      data-testid={`approval-${item.session.id}-${item.key}`}
      className={`${css.card} ${item.resetRequest ? css.requested : ""} ${selected ? css.selected : ""}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex min-w-0 items-start gap-3">
          {selected !== undefined && (
            <input
              type="checkbox"
              className="mt-1 size-4 shrink-0 accent-sky-700"
              aria-label={`Select ${item.key} (${item.session.id})`}
              checked={selected}
              onChange={onSelect}
            />
          )}
          <div className="min-w-0">
            <h2 id={nameId} className="break-words text-base font-medium">
              <span className="mr-2 font-mono text-sm text-zinc-500">{item.key}</span>
              {item.title}
            </h2>
            <p className={css.meta}>
              <Link
                href={`/sessions/${encodeURIComponent(item.session.id)}`}
                prefetch={false}
                className="font-mono text-sky-700 underline underline-offset-2 dark:text-sky-300"
              >
                {item.session.id}
              </Link>
              <StatusBadge status={item.session.status} />
              {item.session.enforcement === "observe" && <Badge tone="warn">observe</Badge>}
              <span>{item.session.source}</span>
              {item.session.mode && <span>· {item.session.mode}</span>}
            </p>
            {item.description && <p className={`mt-1 ${css.text}`}>{item.description}</p>}
            {item.session.requirements && (
              <p className="mt-0.5 line-clamp-2 break-words text-xs text-zinc-600 dark:text-zinc-400">{item.session.requirements}</p>
            )}
          </div>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {item.resetRequest && <Badge tone="warn">reset requested</Badge>}
          {item.resetCount > 0 && <Badge>attempt {item.resetCount + 1}</Badge>}
          <Waited since={item.blockedSince} />
        </div>
      </div>

      {item.resetRequest && (
        <div className={css.request}>
          <p className="font-medium">
            Reset requested by {item.resetRequest.by}
            {item.resetRequest.at && (
              <>
                {" · "}
                <Time at={item.resetRequest.at} />
              </>
            )}
          </p>
          {item.resetRequest.reason && <p className={css.text}>{item.resetRequest.reason}</p>}
        </div>
      )}

      <dl className="mt-3 grid gap-x-6 gap-y-1 sm:grid-cols-2">
        <div className={css.pair}>
          <dt className={css.muted}>Claimant</dt>
          <dd className="min-w-0 break-words">
            {item.claimant ? (
              <>
                <span className="font-medium">{item.claimant.label}</span>
                {item.claimant.principal && <span className={css.principal}>({item.claimant.principal})</span>}
                {item.claimant.at && (
                  <span className={css.muted}>
                    {" · "}
                    <Time at={item.claimant.at} />
                  </span>
                )}
              </>
            ) : (
              <span className={css.muted}>none recorded</span>
            )}
          </dd>
        </div>
        <div className={css.pair}>
          <dt className={css.muted}>{item.blocker.move === "block" ? "Blocked by" : `Blocked (${item.blocker.move}) by`}</dt>
          <dd className="min-w-0 break-words">
            <span className="font-medium">{item.blocker.label}</span>
            {item.blocker.role && <span className={css.muted}> ({item.blocker.role})</span>}
            {item.blocker.principal && <span className={css.principal}>({item.blocker.principal})</span>}
          </dd>
        </div>
      </dl>

      <div className="mt-3 grid gap-3 text-xs sm:grid-cols-2">
        {item.failures.length > 0 && (
          <div>
            <p className="font-medium text-rose-800 dark:text-rose-300">Failures</p>
            <ul className={css.failures}>
              {item.failures.map((failure, i) => (
                <li key={i} className={css.text}>
                  {failure}
                </li>
              ))}
            </ul>
          </div>
        )}
        {(item.proofpack || (item.evidence && item.evidence.length > 0)) && (
          <div>
            <ProofpackSummary proofpack={item.proofpack} />
            <ChecksAndEvidence item={item} />
          </div>
        )}
      </div>

      {(canApprove || canDecline) && (
        <div className="mt-3 flex justify-end gap-2">
          {canDecline && (
            <button type="button" className={`${css.button} ${css.danger}`} aria-haspopup="dialog" onClick={onDecline}>
              Decline reset
            </button>
          )}
          {canApprove && (
            <button type="button" className={`${css.button} ${css.secondary}`} aria-haspopup="dialog" onClick={onApprove}>
              Approve reset
            </button>
          )}
        </div>
      )}
    </article>
  );
}

/** How long the task has waited (the time it was blocked as the title). */
function Waited({ since }: { since: Date }) {
  const now = useNow();
  return (
    <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="waited">
      <time dateTime={since.toISOString()} title={formatUtc(since)}>
        {now === null ? `blocked since ${formatUtc(since)}` : `waiting ${formatDuration(now - since.getTime())}`}
      </time>
    </span>
  );
}

/**
 * The proofpack's checks and the claim's evidence, built only when opened: the failures above say why
 * the task is blocked, and leaving the rest out of the first HTML keeps the inbox's first page small.
 */
function ChecksAndEvidence({ item }: { item: ApprovalItem }) {
  const { ref, open, onToggle } = useDetailsOpen();
  return (
    <details ref={ref} onToggle={onToggle} className="mt-1">
      <summary className="cursor-pointer text-sky-700 underline-offset-2 hover:underline dark:text-sky-300">Checks and evidence</summary>
      {open && (
        <div className="mt-1 space-y-2">
          <ProofpackView proofpack={item.proofpack} />
          <EvidenceList evidence={item.evidence} />
        </div>
      )}
    </details>
  );
}
