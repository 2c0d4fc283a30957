import type { DbOrTx } from "@/db/client";
import { loadSession } from "../session/load";
import { type GoalNode, loadGoalForest } from "./goal-view";
import { parseInput } from "../parse-input";
import { GetGoalTreeInput } from "./schemas";

export interface GoalTree {
  sessionId: string;
  /** Root goals in order, each with its sub-goals. */
  goals: GoalNode[];
}

/**
 * A session's goals as a tree: each goal with its contract, its attempts in order (result status,
 * duration, tool-call count, latest trust score and evaluation, "attempt n of max"), its latest
 * verdict, and its sub-goals. What the dashboard's goal → attempt history shows.
 */
export async function getGoalTree(db: DbOrTx, input: GetGoalTreeInput): Promise<GoalTree> {
  const data = parseInput(GetGoalTreeInput, input, "goal.invalid_input");
  await loadSession(db, data.sessionId);
  return { sessionId: data.sessionId, goals: await loadGoalForest(db, data.sessionId) };
}
