/** What the overview asks for: the same input on the server (prefetch) and in the browser (query key). */
export const OVERVIEW_INPUT = { liveLimit: 20 } as const;
