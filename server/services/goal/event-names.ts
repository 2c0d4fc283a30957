/**
 * Event names for goal-side writes that `EVENT_TYPES` (server/domain/event-types.ts) does not name
 * yet. They follow its `<entity>.<past tense>` style so they can move there unchanged.
 */
export const GOAL_EVENTS = {
  validationStepAdded: "goal.validation_step_added",
  branchCreated: "branch.created",
  worktreeCreated: "worktree.created",
  mergeRecorded: "merge.recorded",
} as const;
