import { listCriteria } from "@/server/services/criteria/list";
import { saveCriteria } from "@/server/services/criteria/save";
import { ListCriteriaInput, SaveCriteriaInput, SetRequiredInput, UpdateCriterionInput, VerifyCriterionInput } from "@/server/services/criteria/schemas";
import { setCriterionRequired, updateCriterion, verifyCriterion } from "@/server/services/criteria/update";
import { authedProcedure, router } from "../trpc";

export const criteriaRouter = router({
  list: authedProcedure.input(ListCriteriaInput).query(async ({ ctx, input }) => listCriteria(ctx.db, input)),
  save: authedProcedure.input(SaveCriteriaInput).mutation(async ({ ctx, input }) => saveCriteria(ctx.service, input)),
  update: authedProcedure.input(UpdateCriterionInput).mutation(async ({ ctx, input }) => updateCriterion(ctx.service, input)),
  verify: authedProcedure.input(VerifyCriterionInput).mutation(async ({ ctx, input }) => verifyCriterion(ctx.service, input)),
  setRequired: authedProcedure.input(SetRequiredInput).mutation(async ({ ctx, input }) => setCriterionRequired(ctx.service, input)),
});
