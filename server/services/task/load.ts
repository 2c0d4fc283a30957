import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { tasks } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";

export type TaskRow = typeof tasks.$inferSelect;

export function loadTask(db: DbOrTx, sessionId: string, key: string): TaskRow {
  const task = db.select().from(tasks).where(and(eq(tasks.sessionId, sessionId), eq(tasks.key, key))).get();
  if (!task) throw new NotFoundError("task", `${sessionId}/${key}`);
  return task;
}
