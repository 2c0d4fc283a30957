import type { inferRouterOutputs } from "@trpc/server";
import type { MovableTask } from "@/app/components/task-actions";
import type { AppRouter } from "@/server/api/root";
import type { TaskStatus } from "@/server/domain/task-machine";

type Outputs = inferRouterOutputs<AppRouter>;
export type TaskItem = Outputs["task"]["board"]["tasks"][number];
export type TransitionItem = TaskItem["transitions"][number];

export const STATUS_LABEL: Record<TaskStatus, string> = {
  pending: "Pending",
  in_progress: "In progress",
  claimed: "Claimed",
  verified: "Verified",
  blocked: "Blocked",
  completed: "Completed",
};

export const movable = (task: TaskItem): MovableTask => ({
  sessionId: task.sessionId,
  key: task.key,
  title: task.title,
  status: task.status,
  resetRequested: task.resetRequested,
  version: task.version,
  claimedBy: task.claimedBy,
  verifiedBy: task.verifiedBy,
});
