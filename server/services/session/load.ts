import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { sessions } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";

export type SessionRow = typeof sessions.$inferSelect;

export function loadSession(db: DbOrTx, id: string): SessionRow {
  const session = db.select().from(sessions).where(eq(sessions.id, id)).get();
  if (!session) throw new NotFoundError("session", id);
  return session;
}
