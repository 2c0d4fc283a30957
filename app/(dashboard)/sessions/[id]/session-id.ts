import { TRPCError } from "@trpc/server";

/** Route params arrive URL-encoded on some paths; a session id never contains `%`, so decoding is safe. */
export async function sessionIdOf(params: Promise<{ id: string }>): Promise<string> {
  return decodeURIComponent((await params).id);
}

/** A malformed or unknown id is a 404 page, not an error page. */
export function isMissingSession(error: unknown): boolean {
  return error instanceof TRPCError && (error.code === "NOT_FOUND" || error.code === "BAD_REQUEST");
}

export const sessionHref = (id: string) => `/sessions/${encodeURIComponent(id)}`;
