import { TASK_STATUSES, type TaskStatus } from "@/server/domain/task-machine";
import type { Api } from "@/server/cli/api";
import type { CompletionPreview } from "@/server/services/completion/preview";
import type { CriterionView } from "@/server/services/criteria/list";
import type { SessionRow } from "@/server/services/session/load";
import type { TaskRow } from "@/server/services/task/load";

export interface SessionState {
  session: SessionRow;
  /** Every task, grouped by its state (every state present, possibly empty). */
  tasksByState: Record<TaskStatus, TaskRow[]>;
  taskCounts: Record<TaskStatus, number>;
  criteria: CriterionView[];
  /** What the completion gate would say now (nothing recorded): check_completion records a check. */
  completionGate: CompletionPreview;
}

/**
 * Where a session stands, for an agent deciding its next move (the get_session tool and the
 * session resource): four reads of the API, the same ones the session page makes.
 */
export async function sessionState(api: Api, input: { id: string }): Promise<SessionState> {
  const session = await api.query<SessionRow>("session.get", { id: input.id });
  const [tasks, criteria, completionGate] = await Promise.all([
    api.query<TaskRow[]>("task.list", { sessionId: session.id }),
    api.query<CriterionView[]>("criteria.list", { sessionId: session.id }),
    api.query<CompletionPreview>("completion.preview", { sessionId: session.id }),
  ]);
  const tasksByState = Object.fromEntries(TASK_STATUSES.map((s) => [s, [] as TaskRow[]])) as Record<TaskStatus, TaskRow[]>;
  for (const task of tasks) tasksByState[task.status].push(task);
  const taskCounts = Object.fromEntries(TASK_STATUSES.map((s) => [s, tasksByState[s].length])) as Record<TaskStatus, number>;
  return { session, tasksByState, taskCounts, criteria, completionGate };
}
