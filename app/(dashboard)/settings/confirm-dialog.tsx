"use client";

import { type ReactNode, useEffect, useId, useRef } from "react";
import { Button, type ButtonVariant } from "@/app/ui/button";
import { FormError } from "@/app/ui/field";

/**
 * A modal question before an action that changes who may do what. Escape or Cancel closes it;
 * a refusal from the server stays in it, beside the button that caused it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  variant = "primary",
  pending,
  error,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  variant?: ButtonVariant;
  pending: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg border border-zinc-200 bg-white p-5 text-zinc-900 shadow-xl backdrop:bg-black/50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      {open && (
        <div className="space-y-4">
          <h2 id={titleId} className="text-base font-semibold">
            {title}
          </h2>
          <div className="space-y-2 text-sm text-zinc-700 dark:text-zinc-300">{children}</div>
          <FormError message={error} />
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button variant={variant} onClick={onConfirm} disabled={pending}>
              {pending ? "Working…" : confirmLabel}
            </Button>
          </div>
        </div>
      )}
    </dialog>
  );
}
