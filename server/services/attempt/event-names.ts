/**
 * Event names for attempt-side writes that `EVENT_TYPES` (server/domain/event-types.ts) does not
 * name yet, in its `<entity>.<past tense>` style so they can move there unchanged.
 */
export const ATTEMPT_EVENTS = {
  toolCallsRecorded: "attempt.tool_calls_recorded",
  validationRunRecorded: "attempt.validation_run_recorded",
} as const;
