/** The most completion checks the session page lists (the API's own maximum). */
export const COMPLETION_HISTORY_LIMIT = 500;
