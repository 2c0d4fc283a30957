"use client";

import { type FormEvent, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ConfirmNote, FormFooter } from "@/app/components/task-actions/form-footer";
import { Modal } from "@/app/components/task-actions/modal";
import { refusalMessage } from "@/app/components/task-actions/use-task-move";
import { useTRPC } from "@/app/trpc/client";
import { Button } from "@/app/ui/button";
import { TextArea } from "@/app/ui/field";
import type { DecisionReport, ResetDecision } from "@/server/services/approvals/decide";

/** A task as it was when the person chose it: its version goes back, so a task moved since is refused, not decided blind. */
export interface BulkTarget {
  sessionId: string;
  key: string;
  title: string;
  version: number;
}

const VERB: Record<ResetDecision, { title: string; done: string; submit: string; busy: string }> = {
  approve_reset: { title: "Approve resets", done: "approved", submit: "Approve resets", busy: "Approving…" },
  decline_reset: { title: "Decline reset requests", done: "declined", submit: "Decline requests", busy: "Declining…" },
};

/** "3 tasks" / "1 task". */
export const tasksWord = (n: number) => `${n} task${n === 1 ? "" : "s"}`;

/**
 * One reason for several tasks, a confirmation, then the server's answer task by task: which were
 * decided and which were refused, each refusal in the ledger's own words and naming its rule.
 */
export function BulkDecisionDialog({
  decision,
  tasks,
  onClose,
  onDone,
}: {
  decision: ResetDecision;
  tasks: BulkTarget[];
  onClose: () => void;
  onDone: (report: DecisionReport) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const procedure = decision === "approve_reset" ? trpc.task.approveResets : trpc.task.declineResets;
  const mutation = useMutation(procedure.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
  const [reason, setReason] = useState("");
  const [confirming, setConfirming] = useState(false);
  const verb = VERB[decision];
  const report = mutation.data;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!confirming) return setConfirming(true);
    mutation.mutate(
      { tasks: tasks.map(({ sessionId, key, version }) => ({ sessionId, key, expectedVersion: version })), reason },
      { onSuccess: onDone, onError: () => setConfirming(false) },
    );
  }

  return (
    <Modal title={`${verb.title}: ${tasksWord(tasks.length)}`} onClose={onClose}>
      {report ? (
        <div className="space-y-3 text-sm">
          <p role="status" data-testid="bulk-summary" className="font-medium">
            {report.applied} of {tasksWord(tasks.length)} {verb.done}
            {report.refused > 0 && `; ${report.refused} refused`}
          </p>
          <ul aria-label="What became of each task" className="space-y-1.5">
            {report.results.map((result) => (
              <li
                key={`${result.sessionId}/${result.key}`}
                data-testid={`bulk-result-${result.sessionId}-${result.key}`}
                data-outcome={result.outcome}
                className={`rounded-md border px-3 py-2 ${
                  result.outcome === "applied"
                    ? "border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100"
                    : "border-rose-300 bg-rose-50 text-rose-950 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-100"
                }`}
              >
                <span className="font-mono">{result.key}</span> <span className="text-xs opacity-80">({result.sessionId})</span>:{" "}
                {result.outcome === "applied" ? (
                  <>
                    {verb.done}, now {result.status}
                  </>
                ) : (
                  <>
                    refused — {result.message} <span className="font-mono text-xs">[{result.rule}]</span>
                  </>
                )}
              </li>
            ))}
          </ul>
          <div className="flex justify-end">
            <Button onClick={onClose}>Close</Button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit} className="space-y-3">
          <ul aria-label="Chosen tasks" className="max-h-40 space-y-0.5 overflow-y-auto text-sm">
            {tasks.map((task) => (
              <li key={`${task.sessionId}/${task.key}`} className="break-words">
                <span className="font-mono">{task.key}</span> <span className="text-zinc-500">({task.sessionId})</span> {task.title}
              </li>
            ))}
          </ul>
          <fieldset disabled={confirming}>
            <TextArea
              label="Reason"
              hint="One reason for every task. Required; recorded on each task's move."
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          </fieldset>
          <FormFooter
            error={refusalMessage(mutation.error)}
            busy={mutation.isPending}
            danger
            submitLabel={confirming ? `Yes, ${verb.submit.toLowerCase()} of ${tasksWord(tasks.length)}` : verb.submit}
            busyLabel={verb.busy}
            cancelLabel={confirming ? "Back" : "Cancel"}
            onCancel={confirming ? () => setConfirming(false) : onClose}
            note={
              confirming && (
                <ConfirmNote>
                  {decision === "approve_reset"
                    ? `Reset ${tasksWord(tasks.length)} to pending? Each is its own move with this reason; its failed attempt is kept in its history.`
                    : `Decline the reset requests of ${tasksWord(tasks.length)}? They stay blocked; each request is closed with this reason.`}{" "}
                  A task that cannot be decided (moved since, or no request to decline) is refused and named; the others still apply.
                </ConfirmNote>
              )
            }
          />
        </form>
      )}
    </Modal>
  );
}
