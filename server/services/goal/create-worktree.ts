import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { worktrees } from "@/db/schema";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadBranch } from "./load";
import { parseInput } from "../parse-input";
import { CreateWorktreeInput } from "./schemas";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

export type WorktreeRow = typeof worktrees.$inferSelect;

/** Record a git worktree tracking a branch; each attempt runs in its own (003). */
export async function createWorktree(ctx: ServiceContext, unredacted: CreateWorktreeInput): Promise<WorktreeRow> {
  const input = redactInput(unredacted);
  authorize(ctx.actor, "goal.createWorktree");
  const data = parseInput(CreateWorktreeInput, input, "worktree.invalid_input");
  return write(ctx, async (tx) => {
    const branch = await loadBranch(tx, data.branchId);
    const worktree = await queryGet(
      tx
        .insert(worktrees)
        .values({ branchId: branch.id, path: data.path, startSha: data.startSha ?? null, reason: data.reason ?? null, timestamp: nowOf(ctx) })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.worktreeCreated,
      sessionId: branch.sessionId,
      entity: "worktree",
      entityId: worktree.id,
      data: { branchId: branch.id, path: worktree.path },
    });
    return worktree;
  });
}
