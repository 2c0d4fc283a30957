"use client";

import type { ReactNode } from "react";
import { EvidenceList, FailureList, ProofpackView } from "@/app/components/task-actions";
import { Badge, StatusBadge } from "@/app/ui/badge";
import { Time } from "@/app/ui/time";
import { useDetailsOpen } from "@/app/ui/use-details-open";
import { splitAttempts } from "./attempts";
import type { TransitionItem } from "./task-types";

/**
 * The card's fine print, folded: its current evidence and proofpack (`children`), then every move,
 * grouped into attempts — a reset starts a new one and keeps the failed one here.
 */
export function TaskHistory({ transitions, children }: { transitions: readonly TransitionItem[]; children?: ReactNode }) {
  // Rendered once opened: a board of hundreds of tasks keeps its DOM small.
  const { ref, open, onToggle } = useDetailsOpen();
  const attempts = splitAttempts(transitions);
  return (
    <details ref={ref} className="mt-2 border-t border-zinc-100 pt-1.5 dark:border-zinc-800" onToggle={onToggle}>
      <summary className="cursor-pointer select-none rounded text-zinc-600 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-sky-600 dark:text-zinc-400 dark:hover:text-zinc-100">
        Details and history
      </summary>
      {open && (
        <div className="mt-1.5 space-y-2">
          {children}
          <h5 className="font-semibold">History</h5>
          {attempts.map((attempt, i) => (
            <section key={i} aria-label={`Attempt ${i + 1}`} className="space-y-1">
              {attempts.length > 1 && (
                <h6 className="font-semibold">
                  Attempt {i + 1} <span className="font-normal text-zinc-500">{i < attempts.length - 1 ? "(previous)" : "(current)"}</span>
                </h6>
              )}
              {attempt.length === 0 ? (
                <p className="text-zinc-500">No moves yet: the task waits to be picked up again.</p>
              ) : (
                <ol className="space-y-1.5 border-l border-zinc-200 pl-2 dark:border-zinc-700">
                  {attempt.map((t) => (
                    <TransitionEntry key={t.id} transition={t} />
                  ))}
                </ol>
              )}
            </section>
          ))}
        </div>
      )}
    </details>
  );
}

function TransitionEntry({ transition: t }: { transition: TransitionItem }) {
  return (
    <li data-testid="transition" className="space-y-1">
      <p className="flex flex-wrap items-center gap-1">
        {t.fromStatus ? <StatusBadge status={t.fromStatus} /> : <span className="text-zinc-500">new</span>}
        <span aria-hidden>→</span>
        <span className="sr-only">to</span>
        <StatusBadge status={t.toStatus} />
        <Badge tone="neutral" className="font-mono">
          {t.move}
        </Badge>
      </p>
      <p className="text-zinc-600 dark:text-zinc-400">
        by <span className="font-medium text-zinc-900 dark:text-zinc-100">{t.actor}</span>
        {t.role && <> ({t.role})</>}
        {t.principalId && <span className="font-mono"> {t.principalId}</span>} · <Time at={t.at} />
      </p>
      {t.claimant && <p>Claim judged: {t.claimant}</p>}
      {t.reason && <p className="whitespace-pre-wrap break-words">Reason: {t.reason}</p>}
      {t.verification === "none" && <Badge tone="bad">unverified</Badge>}
      <EvidenceList evidence={t.evidence} />
      <ProofpackView proofpack={t.proofpack} />
      <FailureList failures={t.failures} />
    </li>
  );
}
