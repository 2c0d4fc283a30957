"use client";

import { StatusBadge } from "@/app/ui/badge";
import { Modal } from "./modal";
import { ApproveResetForm, BlockForm, CompleteForm, DeclineResetForm, VerifyForm } from "./move-forms";
import { MOVE_LABEL, type MovableTask, type OpenMove } from "./types";

/**
 * The form for a move someone started. It stays open while the task changes underneath (the page
 * is live): it then says so, and submitting is refused by the server as a conflict rather than
 * silently acting on a task the person never saw.
 */
export function TaskMoveDialog({
  open,
  task,
  onDone,
  onClose,
}: {
  open: OpenMove;
  task: MovableTask | undefined;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const props = { open, onDone, onCancel: onClose };
  const moved = task !== undefined && task.version !== open.version;
  return (
    <Modal
      title={`${MOVE_LABEL[open.move]} ${open.key}`}
      onClose={onClose}
      description={
        <>
          {task?.title && <p className="break-words">{task.title}</p>}
          {task?.claimedBy && <p>Claimed by {task.claimedBy}</p>}
          {task === undefined && (
            <p role="status" className="mt-2 rounded-md bg-amber-50 px-2 py-1 text-amber-950 dark:bg-amber-950 dark:text-amber-100">
              This task is no longer where you opened this form: someone else may have moved it.
            </p>
          )}
          {moved && (
            <p role="status" className="mt-2 rounded-md bg-amber-50 px-2 py-1 text-amber-950 dark:bg-amber-950 dark:text-amber-100">
              This task changed since you opened this form: it is now <StatusBadge status={task.status} />.
            </p>
          )}
        </>
      }
    >
      {open.move === "verify" && <VerifyForm {...props} />}
      {open.move === "block" && <BlockForm {...props} />}
      {open.move === "complete" && <CompleteForm {...props} verifiedBy={task?.verifiedBy} />}
      {open.move === "approve_reset" && <ApproveResetForm {...props} />}
      {open.move === "decline_reset" && <DeclineResetForm {...props} />}
    </Modal>
  );
}
