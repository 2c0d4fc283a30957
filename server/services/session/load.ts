import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { prepared } from "@/db/prepared";
import { sessions } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";

export type SessionRow = typeof sessions.$inferSelect;

/**
 * The session, or a NotFoundError. Nearly every call begins here, so its query is prepared once
 * per connection (db/prepared.ts): building it with Drizzle on every call was a quarter of a
 * session page's server time.
 */
export async function loadSession(db: DbOrTx, id: string): Promise<SessionRow> {
  const query = prepared(db, "session.by_id", () =>
    db
      .select()
      .from(sessions)
      .where(eq(sessions.id, sql.placeholder("id")))
      .prepare(),
  );
  const session = await query.get({ id });
  if (!session) throw new NotFoundError("session", id);
  return session;
}
