import { z } from "zod";
import { sessionRuntimeActivity } from "@/server/services/runtime/activity";
import { SessionId } from "@/server/services/schemas-common";
import { authedProcedure, router } from "../trpc";

/** Agent runtimes (Claude Code) as the dashboard reads them; their hooks write through /api/hooks/claude-code. */
export const runtimeRouter = router({
  /** A session's linked runtime session(s), its held stops and the stops that went through with the gate rejected. */
  activity: authedProcedure.input(z.object({ sessionId: SessionId }).strict()).query(async ({ ctx, input }) => sessionRuntimeActivity(ctx.db, input)),
});
