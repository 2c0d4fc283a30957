"use client";

import { useCanMove } from "@/app/(dashboard)/viewer";
import { Button } from "@/app/ui/button";
import { MOVE_RULES } from "@/server/domain/task-machine";
import { HUMAN_MOVES, type HumanMove, MOVE_LABEL, type MovableTask } from "./types";

/** The moves this person's role may make on the task in its current state; nothing else is shown. */
export function TaskActionButtons({ task, onOpen, className = "" }: { task: MovableTask; onOpen: (move: HumanMove) => void; className?: string }) {
  const allowed: Record<HumanMove, boolean> = {
    verify: useCanMove("verify"),
    block: useCanMove("block"),
    complete: useCanMove("complete"),
    approve_reset: useCanMove("approve_reset"),
    decline_reset: useCanMove("decline_reset"),
  };
  // A decline answers a pending request: with none, there is nothing to decline.
  const offered = HUMAN_MOVES.filter(
    (move) => allowed[move] && MOVE_RULES[move].from.includes(task.status) && (move !== "decline_reset" || task.resetRequested === true),
  );
  if (offered.length === 0) return null;
  return (
    <div role="group" aria-label={`Actions for ${task.key}`} className={`flex flex-wrap gap-1.5 ${className}`}>
      {offered.map((move) => (
        <Button
          key={move}
          variant={move === "block" || move === "decline_reset" ? "danger" : move === "verify" || move === "complete" ? "primary" : "secondary"}
          aria-haspopup="dialog"
          className="min-h-8 px-2 py-1 text-xs"
          onClick={() => onOpen(move)}
        >
          {MOVE_LABEL[move]}
        </Button>
      ))}
    </div>
  );
}
