import { queryGet } from "@/db/query";
import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { developmentPlans } from "@/db/schema";
import { loadSession } from "../session/load";
import { readJson } from "./redaction";
import type { DevelopmentPlanRow } from "./save-development-plan";
import { GetDevelopmentPlanInput } from "./schemas";
import { parseInput } from "../parse-input";

export type DevelopmentPlan = Omit<DevelopmentPlanRow, "phases" | "metadata"> & { phases: unknown; metadata: unknown };

/** The session's development plan with phases and metadata parsed, or null (`get-development-plan`). */
export async function getDevelopmentPlan(db: DbOrTx, raw: GetDevelopmentPlanInput): Promise<DevelopmentPlan | null> {
  const input = parseInput(GetDevelopmentPlanInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const row = await queryGet(db.select().from(developmentPlans).where(eq(developmentPlans.sessionId, input.sessionId)));
  if (!row) return null;
  return { ...row, phases: readJson(row.phases), metadata: readJson(row.metadata) };
}
