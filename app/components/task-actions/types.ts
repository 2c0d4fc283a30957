import type { TaskStatus } from "@/server/domain/task-machine";

/** The moves a person makes from the dashboard; agents claim and orchestrators start through the API. */
export const HUMAN_MOVES = ["verify", "block", "complete", "approve_reset", "decline_reset"] as const;
export type HumanMove = (typeof HUMAN_MOVES)[number];

export const MOVE_LABEL: Record<HumanMove, string> = {
  verify: "Verify",
  block: "Block",
  complete: "Complete",
  approve_reset: "Approve reset",
  decline_reset: "Decline reset",
};

/** What the actions need to know about a task, whichever list it came from. */
export interface MovableTask {
  sessionId: string;
  key: string;
  title: string;
  status: TaskStatus;
  version: number;
  claimedBy: string | null;
  verifiedBy?: string | null;
  /** A reset request awaits a lead's answer (only then may it be declined). */
  resetRequested?: boolean;
}

/** A move someone started: the version they saw is sent back, so a task moved meanwhile is a CONFLICT. */
export interface OpenMove {
  sessionId: string;
  key: string;
  move: HumanMove;
  version: number;
}
