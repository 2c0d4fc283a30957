import { AnalyticsInput } from "@/server/services/analytics/schemas";
import { analyticsOverview } from "@/server/services/analytics/overview";
import { authedProcedure, router } from "../trpc";

/**
 * Analytics across sessions, readable by every signed-in role. One procedure returns every figure
 * of the analytics page, so the page makes one round trip and the figures agree on their filters.
 */
export const analyticsRouter = router({
  overview: authedProcedure.input(AnalyticsInput).query(({ ctx, input }) => analyticsOverview(ctx.db, input)),
});
