import { TRPCError } from "@trpc/server";
import { CreateFirstAdminInput, createFirstAdmin, userCount } from "@/server/services/admin/users";
import { publicProcedure, router } from "../trpc";

/**
 * First run: a fresh install has no users, and the first visit creates the admin account. The
 * only procedures callable without signing in. The write must come from this site's own page, so
 * another site cannot plant its own admin on a fresh install running on someone's machine.
 */
export const setupRouter = router({
  status: publicProcedure.query(async ({ ctx }) => ({ needsSetup: (await userCount(ctx.db)) === 0 })),
  createFirstAdmin: publicProcedure.input(CreateFirstAdminInput).mutation(async ({ ctx, input }) => {
    if (!ctx.sameOrigin) throw new TRPCError({ code: "FORBIDDEN", message: "csrf: the first admin can only be created from this site's own setup page" });
    const user = await createFirstAdmin(ctx.db, input);
    return { id: user.id, email: user.email, role: user.role };
  }),
});
