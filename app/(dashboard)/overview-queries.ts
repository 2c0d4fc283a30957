/** What the overview asks for: the same inputs on the server (prefetch) and in the browser (query keys). */

/** The live sessions listed (newest first); the rest are one click away on /sessions. */
export const LIVE_INPUT = { status: "active", order: "newest", limit: 20 } as const;
export const ACTIVITY_SIZE = 20;

/** The newest events, given the newest id: ids are consecutive, so this is one short range read. */
export const activityInput = (latestId: number) => ({ afterId: Math.max(0, latestId - ACTIVITY_SIZE), limit: ACTIVITY_SIZE });
