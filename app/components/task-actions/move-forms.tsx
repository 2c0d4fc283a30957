"use client";

import { type FormEvent, useState } from "react";
import { TextArea } from "@/app/ui/field";
import { ChecksEditor, checksOf, newCheck } from "./checks-editor";
import { ConfirmNote, FormFooter } from "./form-footer";
import type { OpenMove } from "./types";
import { refusalMessage, useTaskMove } from "./use-task-move";

export interface MoveFormProps {
  open: OpenMove;
  onDone: (message: string) => void;
  onCancel: () => void;
}

const ref = (open: OpenMove) => ({ sessionId: open.sessionId, key: open.key, expectedVersion: open.version });

/** Verify: the checks run and their results, and notes, become the proofpack (verdict PASSED). */
export function VerifyForm({ open, onDone, onCancel }: MoveFormProps) {
  const mutation = useTaskMove("verify");
  const [checks, setChecks] = useState(() => [newCheck()]);
  const [notes, setNotes] = useState("");
  function submit(event: FormEvent) {
    event.preventDefault();
    const proofpack = { verdict: "PASSED" as const, checks: checksOf(checks), ...(notes.trim() ? { notes: notes.trim() } : {}) };
    mutation.mutate({ ...ref(open), proofpack }, { onSuccess: (task) => onDone(`${task.key} is now ${task.status}`) });
  }
  return (
    <form onSubmit={submit} className="space-y-3">
      <ChecksEditor checks={checks} onChange={setChecks} />
      <p className="text-xs text-zinc-500">Every check must pass to verify; if one failed, block the task instead.</p>
      <TextArea label="Notes" value={notes} onChange={(e) => setNotes(e.target.value)} />
      <FormFooter error={refusalMessage(mutation.error)} busy={mutation.isPending} submitLabel="Verify task" busyLabel="Verifying…" onCancel={onCancel} />
    </form>
  );
}

/** Block: the failures (required) and, optionally, the checks that found them (verdict BLOCKED). */
export function BlockForm({ open, onDone, onCancel }: MoveFormProps) {
  const mutation = useTaskMove("block");
  const [failures, setFailures] = useState("");
  const [checks, setChecks] = useState(() => [newCheck(false)]);
  const [notes, setNotes] = useState("");
  const [confirming, setConfirming] = useState(false);
  const failureList = failures
    .split("\n")
    .map((f) => f.trim())
    .filter((f) => f !== "");
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!confirming) return setConfirming(true);
    const named = checksOf(checks);
    const proofpack =
      named.length > 0 || notes.trim() ? { verdict: "BLOCKED" as const, checks: named, ...(notes.trim() ? { notes: notes.trim() } : {}) } : undefined;
    mutation.mutate(
      { ...ref(open), failures: failureList, ...(proofpack ? { proofpack } : {}) },
      { onSuccess: (task) => onDone(`${task.key} is now ${task.status}`), onError: () => setConfirming(false) },
    );
  }
  return (
    <form onSubmit={submit} className="space-y-3">
      <fieldset disabled={confirming} className="space-y-3">
        <TextArea
          label="Failures"
          hint="One per line: what is wrong and must be fixed. At least one is required."
          value={failures}
          onChange={(e) => setFailures(e.target.value)}
        />
        <ChecksEditor checks={checks} onChange={setChecks} defaultPassed={false} />
        <TextArea label="Notes" value={notes} onChange={(e) => setNotes(e.target.value)} />
      </fieldset>
      <FormFooter
        error={refusalMessage(mutation.error)}
        busy={mutation.isPending}
        danger
        submitLabel={confirming ? `Yes, block ${open.key}` : "Block task"}
        busyLabel="Blocking…"
        cancelLabel={confirming ? "Back" : "Cancel"}
        onCancel={confirming ? () => setConfirming(false) : onCancel}
        note={
          confirming && (
            <ConfirmNote>
              Block {open.key} with {failureList.length} failure{failureList.length === 1 ? "" : "s"}? The claim is recorded as failed and the task waits in the
              approval inbox until a lead approves a reset.
            </ConfirmNote>
          )
        }
      />
    </form>
  );
}

/** Complete: a verified task becomes completed. Final, so the dialog itself is the confirmation. */
export function CompleteForm({ open, onDone, onCancel, verifiedBy }: MoveFormProps & { verifiedBy?: string | null }) {
  const mutation = useTaskMove("complete");
  function submit(event: FormEvent) {
    event.preventDefault();
    mutation.mutate(ref(open), { onSuccess: (task) => onDone(`${task.key} is now ${task.status}`) });
  }
  return (
    <form onSubmit={submit}>
      <ConfirmNote>
        Mark {open.key} completed{verifiedBy ? ` (verified by ${verifiedBy})` : ""}? Completed is final: the task cannot be moved again.
      </ConfirmNote>
      <FormFooter error={refusalMessage(mutation.error)} busy={mutation.isPending} submitLabel="Complete task" busyLabel="Completing…" onCancel={onCancel} />
    </form>
  );
}

/** Decline reset: the task stays blocked; the request is closed with the reason, kept in the task's history. */
export function DeclineResetForm({ open, onDone, onCancel }: MoveFormProps) {
  const mutation = useTaskMove("decline_reset");
  const [reason, setReason] = useState("");
  const [confirming, setConfirming] = useState(false);
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!confirming) return setConfirming(true);
    mutation.mutate(
      { ...ref(open), reason },
      { onSuccess: (task) => onDone(`the reset request of ${task.key} was declined; it stays ${task.status}`), onError: () => setConfirming(false) },
    );
  }
  return (
    <form onSubmit={submit} className="space-y-3">
      <fieldset disabled={confirming}>
        <TextArea
          label="Reason"
          hint="Why the task may not be tried again yet. Required; kept in the task's history."
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </fieldset>
      <FormFooter
        error={refusalMessage(mutation.error)}
        busy={mutation.isPending}
        danger
        submitLabel={confirming ? `Yes, decline for ${open.key}` : "Decline reset"}
        busyLabel="Declining…"
        cancelLabel={confirming ? "Back" : "Cancel"}
        onCancel={confirming ? () => setConfirming(false) : onCancel}
        note={
          confirming && (
            <ConfirmNote>
              Decline the reset request of {open.key}? The task stays blocked with its failures; the request is closed and your reason recorded.
            </ConfirmNote>
          )
        }
      />
    </form>
  );
}

/** Approve reset: back to pending with a reason; the failed attempt stays in the task's history. */
export function ApproveResetForm({ open, onDone, onCancel }: MoveFormProps) {
  const mutation = useTaskMove("approve_reset");
  const [reason, setReason] = useState("");
  const [confirming, setConfirming] = useState(false);
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!confirming) return setConfirming(true);
    mutation.mutate({ ...ref(open), reason }, { onSuccess: (task) => onDone(`${task.key} is now ${task.status}`), onError: () => setConfirming(false) });
  }
  return (
    <form onSubmit={submit} className="space-y-3">
      <fieldset disabled={confirming}>
        <TextArea
          label="Reason"
          hint="Why the task may be tried again. Required; kept in the task's history."
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </fieldset>
      <FormFooter
        error={refusalMessage(mutation.error)}
        busy={mutation.isPending}
        danger
        submitLabel={confirming ? `Yes, reset ${open.key}` : "Approve reset"}
        busyLabel="Resetting…"
        cancelLabel={confirming ? "Back" : "Cancel"}
        onCancel={confirming ? () => setConfirming(false) : onCancel}
        note={
          confirming && (
            <ConfirmNote>
              Reset {open.key} to pending? Its claim, proofpack and failures are cleared from the task and kept as a previous attempt in its history.
            </ConfirmNote>
          )
        }
      />
    </form>
  );
}
