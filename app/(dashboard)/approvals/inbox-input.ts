/** One page of the inbox; later pages load on demand. Shared by the server prefetch and the client. */
export const INBOX_INPUT = { limit: 50 } as const;

export const inboxPaging = { getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor };
