"use client";

import type { ReactNode } from "react";
import { Button } from "@/app/ui/button";
import { FormError } from "@/app/ui/field";

/** The refusal (if any) above Cancel and the submit button; the submit button says what it does. */
export function FormFooter({
  error,
  busy,
  submitLabel,
  busyLabel,
  onCancel,
  danger = false,
  cancelLabel = "Cancel",
  note,
}: {
  error: string | null;
  busy: boolean;
  submitLabel: string;
  busyLabel: string;
  onCancel: () => void;
  danger?: boolean;
  cancelLabel?: string;
  note?: ReactNode;
}) {
  return (
    <div className="mt-4 space-y-3">
      {note}
      <FormError message={error} />
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </Button>
        <Button type="submit" variant={danger ? "danger" : "primary"} disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </Button>
      </div>
    </div>
  );
}

/** The second step of a move that cannot be taken back: what will happen, in words. */
export function ConfirmNote({ children }: { children: ReactNode }) {
  return (
    <div
      role="note"
      className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
    >
      {children}
    </div>
  );
}
