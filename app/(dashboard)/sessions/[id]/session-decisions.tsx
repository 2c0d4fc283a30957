"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type FormEvent, useState } from "react";
import { useMay } from "@/app/(dashboard)/viewer";
import { ConfirmNote, FormFooter } from "@/app/components/task-actions/form-footer";
import { Modal } from "@/app/components/task-actions/modal";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { Button } from "@/app/ui/button";
import { TextArea } from "@/app/ui/field";
import { Time } from "@/app/ui/time";
import type { AppRouter } from "@/server/api/root";

type Session = inferRouterOutputs<AppRouter>["session"]["get"];

/**
 * The session's enforcement (a badge), the last switch's who/when/why, and — for a role that may
 * switch it — the switch itself: a dialog asking for the reason, then a confirmation.
 */
export function EnforcementControl({ session }: { session: Session }) {
  const trpc = useTRPC();
  const canSwitch = useMay("session.setEnforcement");
  const history = useQuery(trpc.session.enforcementHistory.queryOptions({ sessionId: session.id, limit: 1 }));
  const [open, setOpen] = useState(false);
  const last = history.data?.[0];
  const target = session.enforcement === "enforce" ? "observe" : "enforce";
  return (
    <div className="space-y-1" data-testid="enforcement">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={session.enforcement === "observe" ? "warn" : "neutral"}>{session.enforcement}</Badge>
        {canSwitch && (
          <Button variant="secondary" aria-haspopup="dialog" className="min-h-7 px-2 py-0.5 text-xs" onClick={() => setOpen(true)}>
            Switch to {target}
          </Button>
        )}
      </div>
      {last && (
        <p data-testid="last-enforcement-switch" className="text-xs text-zinc-600 dark:text-zinc-400">
          Switched to {last.to} by {last.actor}
          {last.role && ` (${last.role})`} · <Time at={last.at} />
          {last.reason && <span className="block whitespace-pre-wrap break-words">“{last.reason}”</span>}
        </p>
      )}
      {open && <EnforcementDialog session={session} target={target} onClose={() => setOpen(false)} />}
    </div>
  );
}

function EnforcementDialog({ session, target, onClose }: { session: Session; target: "enforce" | "observe"; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mutation = useMutation(trpc.session.setEnforcement.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
  const [reason, setReason] = useState("");
  const [confirming, setConfirming] = useState(false);
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!confirming) return setConfirming(true);
    mutation.mutate({ sessionId: session.id, enforcement: target, reason }, { onSuccess: onClose, onError: () => setConfirming(false) });
  }
  return (
    <Modal
      title={`Switch ${session.id} to ${target}`}
      onClose={onClose}
      description={<p>Now {session.enforcement}. Only a lead decides this; the switch and its reason are kept on the session.</p>}
    >
      <form onSubmit={submit} className="space-y-3">
        <fieldset disabled={confirming}>
          <TextArea
            label="Reason"
            hint="Why the session's enforcement changes. Required; shown on the session."
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        </fieldset>
        <FormFooter
          error={mutation.error?.message ?? null}
          busy={mutation.isPending}
          danger={target === "observe"}
          submitLabel={confirming ? `Yes, switch to ${target}` : `Switch to ${target}`}
          busyLabel="Switching…"
          cancelLabel={confirming ? "Back" : "Cancel"}
          onCancel={confirming ? () => setConfirming(false) : onClose}
          note={
            confirming && (
              <ConfirmNote>
                {target === "observe"
                  ? `Switch ${session.id} to observe? Statuses its orchestrator reports are then accepted even when they skip the task machine, and recorded as unverified.`
                  : `Switch ${session.id} to enforce? Every move of the task machine is then refused when broken, by the server and the database.`}
              </ConfirmNote>
            )
          }
        />
      </form>
    </Modal>
  );
}

/**
 * Complete or fail an active session, for a role that may. While the gate would reject an enforced
 * session (`completion.preview`, which records nothing), Complete is disabled and says why — the
 * reasons are the completion gate's, listed just below it — so looking never records a rejected
 * check. Completing runs the gate again: a rejection that arrives in the meantime stays in the
 * dialog with every reason the gate gave, word for word. A session in observe completes even when
 * the gate rejects, so its Complete stays offered.
 */
export function SessionStatusControl({ session }: { session: Session }) {
  const trpc = useTRPC();
  const canChange = useMay("session.updateStatus");
  const preview = useQuery(trpc.completion.preview.queryOptions({ sessionId: session.id }));
  const [open, setOpen] = useState<"completed" | "failed" | null>(null);
  if (!canChange || session.status !== "active") return null;
  const rejects = session.enforcement === "enforce" && preview.data?.accepted === false ? preview.data.reasons.length : 0;
  return (
    <div className="space-y-1">
      <div role="group" aria-label="Session decisions" className="flex flex-wrap gap-2">
        <Button
          aria-haspopup="dialog"
          disabled={rejects > 0}
          aria-describedby={rejects > 0 ? "complete-unavailable" : undefined}
          onClick={() => setOpen("completed")}
        >
          Complete session
        </Button>
        <Button variant="danger" aria-haspopup="dialog" onClick={() => setOpen("failed")}>
          Mark failed
        </Button>
      </div>
      {rejects > 0 && (
        <p id="complete-unavailable" className="text-xs text-zinc-600 dark:text-zinc-400">
          Complete is unavailable while the completion gate rejects this session ({rejects} reason{rejects === 1 ? "" : "s"}, listed below).
        </p>
      )}
      {open && <StatusDialog session={session} status={open} onClose={() => setOpen(null)} />}
    </div>
  );
}

function StatusDialog({ session, status, onClose }: { session: Session; status: "completed" | "failed"; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // A rejected completion still recorded a check: refetch either way so the gate panel shows it.
  const mutation = useMutation(trpc.session.updateStatus.mutationOptions({ onSettled: () => queryClient.invalidateQueries() }));
  const completing = status === "completed";
  function submit(event: FormEvent) {
    event.preventDefault();
    mutation.mutate({ sessionId: session.id, status }, { onSuccess: onClose });
  }
  const reasons = mutation.error?.data?.reasons ?? [];
  return (
    <Modal title={completing ? `Complete ${session.id}` : `Mark ${session.id} failed`} onClose={onClose}>
      <form onSubmit={submit}>
        <ConfirmNote>
          {completing
            ? session.enforcement === "enforce"
              ? "Complete this session? The completion gate runs first: if it rejects, the session stays active and the reasons are listed here."
              : "Complete this session? It is in observe: the gate runs and its verdict is recorded, and the session is marked completed even if it rejects."
            : "Mark this session failed? It ends now, without passing the completion gate."}
        </ConfirmNote>
        {reasons.length > 0 && (
          <ul aria-label="Why the gate rejected" className="mt-3 list-disc space-y-1 pl-5 text-sm text-rose-900 dark:text-rose-100">
            {reasons.map((reason) => (
              <li key={reason} className="break-words">
                {reason}
              </li>
            ))}
          </ul>
        )}
        <FormFooter
          error={mutation.error?.message ?? null}
          busy={mutation.isPending}
          danger={!completing}
          submitLabel={completing ? "Run the gate and complete" : "Yes, mark failed"}
          busyLabel={completing ? "Checking…" : "Saving…"}
          onCancel={onClose}
        />
      </form>
    </Modal>
  );
}
