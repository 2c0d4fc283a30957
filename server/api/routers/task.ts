import type { TaskMove } from "@/server/domain/task-machine";
import { inboxCount } from "@/server/services/approvals/count";
import { listInbox } from "@/server/services/approvals/inbox";
import { decideResets } from "@/server/services/approvals/decide";
import { DecideResetsInput, InboxCountInput, InboxInput } from "@/server/services/approvals/schemas";
import { createTask } from "@/server/services/task/create";
import { getTask, getTaskBoard, listTasks } from "@/server/services/task/list";
import { moveParsedTask } from "@/server/services/task/move";
import { reportTask } from "@/server/services/task/report";
import { CreateTaskInput, ListTasksInput, ReportTaskInput, TaskBoardInput, TaskMoveInput, TaskRef } from "@/server/services/task/schemas";
import { authedProcedure, router } from "../trpc";

/** One procedure per move (`task.claim`, `task.verify`, …): the move's name is the procedure's. */
const move = (name: TaskMove) => authedProcedure.input(TaskMoveInput).mutation(async ({ ctx, input }) => moveParsedTask(ctx.service, { ...input, move: name }));

export const taskRouter = router({
  list: authedProcedure.input(ListTasksInput).query(async ({ ctx, input }) => listTasks(ctx.db, input)),
  /** Every task of a session with its full transition history, in one call (the session page's board). */
  board: authedProcedure.input(TaskBoardInput).query(async ({ ctx, input }) => getTaskBoard(ctx.db, input)),
  get: authedProcedure.input(TaskRef).query(async ({ ctx, input }) => getTask(ctx.db, input)),
  /** The approvals inbox: blocked tasks across sessions, reset requests first, longest-waiting first. */
  inbox: authedProcedure.input(InboxInput.optional()).query(async ({ ctx, input }) => listInbox(ctx.db, input)),
  inboxCount: authedProcedure.input(InboxCountInput.optional()).query(async ({ ctx, input }) => inboxCount(ctx.db, input)),
  create: authedProcedure.input(CreateTaskInput).mutation(async ({ ctx, input }) => createTask(ctx.service, input)),
  report: authedProcedure.input(ReportTaskInput).mutation(async ({ ctx, input }) => reportTask(ctx.service, input)),
  start: move("start"),
  claim: move("claim"),
  verify: move("verify"),
  block: move("block"),
  complete: move("complete"),
  requestReset: move("request_reset"),
  approveReset: move("approve_reset"),
  /** Close a pending reset request with a reason; the task stays blocked. */
  declineReset: move("decline_reset"),
  /** Approve the reset of several blocked tasks with one reason: each its own move, each refusal named in the answer. */
  approveResets: authedProcedure.input(DecideResetsInput).mutation(async ({ ctx, input }) => decideResets(ctx.service, "approve_reset", input)),
  /** Decline the reset requests of several blocked tasks with one reason: each its own move, each refusal named in the answer. */
  declineResets: authedProcedure.input(DecideResetsInput).mutation(async ({ ctx, input }) => decideResets(ctx.service, "decline_reset", input)),
});
