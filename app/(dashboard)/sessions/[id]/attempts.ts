/**
 * A task's transitions split into attempts: `approve_reset` closes an attempt (the failed claim,
 * its proofpack and failures stay in it) and the next moves belong to a new one, empty until the
 * task is picked up again.
 */
export function splitAttempts<T extends { move: string }>(transitions: readonly T[]): T[][] {
  const attempts: T[][] = [[]];
  for (const transition of transitions) {
    attempts.at(-1)!.push(transition);
    if (transition.move === "approve_reset") attempts.push([]);
  }
  return attempts;
}
