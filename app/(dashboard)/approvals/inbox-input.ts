/** Sessions read to find blocked tasks (the rollup says which have any). Shared by the server prefetch and the client. */
export const BLOCKED_SESSIONS_INPUT = { hasBlocked: true, limit: 200 } as const;
