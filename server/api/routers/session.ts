import { createSession } from "@/server/services/session/create";
import { ListSessionsInput, listSessions } from "@/server/services/session/list";
import { getSession } from "@/server/services/session/get";
import { CreateSessionInput, EnforcementHistoryInput, GetSessionInput, SetEnforcementInput, UpdateSessionStatusInput } from "@/server/services/session/schemas";
import { listEnforcementSwitches } from "@/server/services/session/enforcement-history";
import { setSessionEnforcement, updateSessionStatus } from "@/server/services/session/update-status";
import { OverviewInput, getOverview } from "@/server/services/overview/get";
import { authedProcedure, router } from "../trpc";

export const sessionRouter = router({
  list: authedProcedure.input(ListSessionsInput).query(async ({ ctx, input }) => listSessions(ctx.db, input)),
  get: authedProcedure.input(GetSessionInput).query(async ({ ctx, input }) => getSession(ctx.db, input)),
  /** The `/` page: live sessions with progress, tasks by state, the inbox count, recent checks, activity. */
  overview: authedProcedure.input(OverviewInput.optional()).query(async ({ ctx, input }) => getOverview(ctx.db, input)),
  /** Who switched the session between enforce and observe, when and why: newest first. */
  enforcementHistory: authedProcedure.input(EnforcementHistoryInput).query(async ({ ctx, input }) => listEnforcementSwitches(ctx.db, input)),
  create: authedProcedure.input(CreateSessionInput).mutation(async ({ ctx, input }) => createSession(ctx.service, input)),
  updateStatus: authedProcedure.input(UpdateSessionStatusInput).mutation(async ({ ctx, input }) => updateSessionStatus(ctx.service, input)),
  setEnforcement: authedProcedure.input(SetEnforcementInput).mutation(async ({ ctx, input }) => setSessionEnforcement(ctx.service, input)),
});
