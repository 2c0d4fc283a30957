"use client";

import { type ReactNode, useEffect, useId, useRef } from "react";

/**
 * A native modal dialog: focus moves into it and stays there, Escape closes it, the page behind
 * is inert. Mounted means open.
 */
export function Modal({ title, description, onClose, children }: { title: string; description?: ReactNode; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      className="m-auto max-h-[calc(100dvh-2rem)] w-[min(36rem,calc(100vw-2rem))] overflow-y-auto rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="p-4 sm:p-5">
        <h2 id={titleId} className="text-lg font-semibold">
          {title}
        </h2>
        {description && <div className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{description}</div>}
        <div className="mt-4">{children}</div>
      </div>
    </dialog>
  );
}
