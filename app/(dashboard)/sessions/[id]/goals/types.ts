import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

type Outputs = inferRouterOutputs<AppRouter>;

export type GoalNode = Outputs["goal"]["tree"]["goals"][number];
export type AttemptSummary = GoalNode["attempts"][number];
export type Evaluation = NonNullable<GoalNode["latestEvaluation"]>;
export type AttemptDetail = Outputs["attempt"]["get"];
export type GoalDetail = Outputs["goal"]["get"];
