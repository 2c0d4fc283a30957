import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { merges } from "@/db/schema";
import { ValidationError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadBranch } from "./load";
import { parseInput } from "../parse-input";
import { RecordMergeInput } from "./schemas";
import { authorize } from "@/server/domain/permissions";

export type MergeRow = typeof merges.$inferSelect;

/** Record a successful merge between two branches of one session (failed merges are not recorded, per 003). */
export async function recordMerge(ctx: ServiceContext, input: RecordMergeInput): Promise<MergeRow> {
  authorize(ctx.actor, "goal.recordMerge");
  const data = parseInput(RecordMergeInput, input, "merge.invalid_input");
  if (data.fromBranchId === data.toBranchId) throw new ValidationError("toBranchId", "merge.same_branch", "a branch is not merged into itself");
  return write(ctx, async (tx) => {
    const from = await loadBranch(tx, data.fromBranchId);
    const to = await loadBranch(tx, data.toBranchId);
    if (from.sessionId !== to.sessionId) {
      throw new ValidationError("toBranchId", "merge.other_session", `branches ${from.id} and ${to.id} belong to different sessions`);
    }
    const merge = await queryGet(
      tx
        .insert(merges)
        .values({ ...data, timestamp: nowOf(ctx) })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.mergeRecorded,
      sessionId: from.sessionId,
      entity: "merge",
      entityId: merge.id,
      data: { from: from.name, to: to.name, resultCommitSha: merge.resultCommitSha },
    });
    return merge;
  });
}
