"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useMay } from "@/app/(dashboard)/viewer";
import { ConfirmNote, FormFooter } from "@/app/components/task-actions/form-footer";
import { Modal } from "@/app/components/task-actions/modal";
import { useTRPC } from "@/app/trpc/client";
import { Button } from "@/app/ui/button";
import { Field, TextArea } from "@/app/ui/field";

/** The findings a verifier records: a criterion stays `pending` until someone finds one of these. */
const FINDINGS = ["met", "failed", "blocked"] as const;
type Finding = (typeof FINDINGS)[number];

const FINDING_HINT: Record<Finding, string> = {
  met: "the criterion holds, as the evidence shows",
  failed: "the criterion does not hold",
  blocked: "something outside the team's control stops it; the evidence names the blocker",
};

interface CriterionRef {
  sessionId: string;
  criterion: string;
  requiredForCompletion: boolean;
}

/**
 * The decisions a person takes on one criterion, each offered only to a role that may take it:
 * recording a verifier's finding (criteria.verify) and making it required or optional
 * (criteria.setRequired, a lead's call).
 */
export function CriterionDecisions({ criterion }: { criterion: CriterionRef }) {
  const canVerify = useMay("criteria.verify");
  const canSetRequired = useMay("criteria.setRequired");
  const [open, setOpen] = useState<"finding" | "required" | null>(null);
  if (!canVerify && !canSetRequired) return null;
  return (
    <div role="group" aria-label={`Decisions on ${criterion.criterion}`} className="mt-2 flex flex-wrap gap-1.5">
      {canVerify && (
        <Button variant="secondary" aria-haspopup="dialog" className="min-h-8 px-2 py-1 text-xs" onClick={() => setOpen("finding")}>
          Record finding
        </Button>
      )}
      {canSetRequired && (
        <Button variant="secondary" aria-haspopup="dialog" className="min-h-8 px-2 py-1 text-xs" onClick={() => setOpen("required")}>
          {criterion.requiredForCompletion ? "Make optional" : "Make required"}
        </Button>
      )}
      {open === "finding" && <FindingDialog criterion={criterion} onClose={() => setOpen(null)} />}
      {open === "required" && <RequiredDialog criterion={criterion} onClose={() => setOpen(null)} />}
    </div>
  );
}

function FindingDialog({ criterion, onClose }: { criterion: CriterionRef; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mutation = useMutation(trpc.criteria.verify.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
  const [status, setStatus] = useState<Finding>("met");
  const [actual, setActual] = useState("");
  const [evidence, setEvidence] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [missing, setMissing] = useState<string | null>(null);
  function submit(event: FormEvent) {
    event.preventDefault();
    // A finding without evidence is another claim: the dashboard asks for it before anything is sent.
    if (evidence.trim() === "") return setMissing("Evidence: required — say what you checked and what it showed.");
    setMissing(null);
    if (!confirming) return setConfirming(true);
    mutation.mutate(
      { sessionId: criterion.sessionId, criterion: criterion.criterion, status, evidence, ...(actual.trim() ? { actual } : {}) },
      { onSuccess: onClose, onError: () => setConfirming(false) },
    );
  }
  return (
    <Modal title="Record a verifier's finding" onClose={onClose} description={<p className="break-words">{criterion.criterion}</p>}>
      <form onSubmit={submit} className="space-y-3">
        <fieldset disabled={confirming} className="space-y-3">
          <fieldset>
            <legend className="mb-1 text-sm font-medium">Finding</legend>
            <div className="space-y-1 text-sm">
              {FINDINGS.map((finding) => (
                <label key={finding} className="flex items-start gap-2">
                  <input type="radio" name="finding" value={finding} checked={status === finding} onChange={() => setStatus(finding)} className="mt-1" />
                  <span>
                    <span className="font-medium">{finding}</span> <span className="text-zinc-500">— {FINDING_HINT[finding]}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <Field label="Actual" hint="Optional: the value or state you observed." value={actual} onChange={(e) => setActual(e.target.value)} />
          <TextArea label="Evidence" hint="Required: what you checked, with links or paths." value={evidence} onChange={(e) => setEvidence(e.target.value)} />
        </fieldset>
        <FormFooter
          error={missing ?? mutation.error?.message ?? null}
          busy={mutation.isPending}
          danger={status !== "met"}
          submitLabel={confirming ? `Yes, record ${status}` : "Record finding"}
          busyLabel="Recording…"
          cancelLabel={confirming ? "Back" : "Cancel"}
          onCancel={confirming ? () => setConfirming(false) : onClose}
          note={
            confirming && (
              <ConfirmNote>
                Record “{status}” as the verifier&apos;s finding? Where it differs from the PM&apos;s claim, the completion gate trusts this finding.
              </ConfirmNote>
            )
          }
        />
      </form>
    </Modal>
  );
}

function RequiredDialog({ criterion, onClose }: { criterion: CriterionRef; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mutation = useMutation(trpc.criteria.setRequired.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
  const required = !criterion.requiredForCompletion;
  function submit(event: FormEvent) {
    event.preventDefault();
    mutation.mutate({ sessionId: criterion.sessionId, criterion: criterion.criterion, required }, { onSuccess: onClose });
  }
  return (
    <Modal
      title={required ? "Make this criterion required" : "Make this criterion optional"}
      onClose={onClose}
      description={<p className="break-words">{criterion.criterion}</p>}
    >
      <form onSubmit={submit}>
        <ConfirmNote>
          {required
            ? "Require it for completion? The session can then complete only once it is met (or blocked by something external)."
            : "Make it optional? The completion gate stops counting it; the change and who made it stay in the criterion's history."}
        </ConfirmNote>
        <FormFooter
          error={mutation.error?.message ?? null}
          busy={mutation.isPending}
          danger={!required}
          submitLabel={required ? "Make required" : "Make optional"}
          busyLabel="Saving…"
          onCancel={onClose}
        />
      </form>
    </Modal>
  );
}
