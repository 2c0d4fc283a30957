import type { Db } from "@/db/client";
import type { tasks } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { selectTask } from "./statements";

export type TaskRow = typeof tasks.$inferSelect;

/** A task by its key (a statement prepared once per connection; inside a write, pass the transaction's `ctx.db`). */
export async function loadTask(db: Db, sessionId: string, key: string): Promise<TaskRow> {
  const task = await selectTask(db, sessionId, key);
  if (!task) throw new NotFoundError("task", `${sessionId}/${key}`);
  return task;
}
