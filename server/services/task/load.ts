import type { Db } from "@/db/client";
import type { tasks } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { selectTask, selectTaskSync } from "./statements";

export type TaskRow = typeof tasks.$inferSelect;

/** A task by its key (a statement prepared once per connection; inside a write, pass the transaction's `ctx.db`). */
export async function loadTask(db: Db, sessionId: string, key: string): Promise<TaskRow> {
  return found(await selectTask(db, sessionId, key), sessionId, key);
}

/** `loadTask` on SQLite, where it never awaits (services/context.ts, writeSync). */
export function loadTaskSync(db: Db, sessionId: string, key: string): TaskRow {
  return found(selectTaskSync(db, sessionId, key), sessionId, key);
}

function found(task: TaskRow | undefined, sessionId: string, key: string): TaskRow {
  if (!task) throw new NotFoundError("task", `${sessionId}/${key}`);
  return task;
}
