import { rawValues } from "@/db/query";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { ALWAYS, sessionModelOf } from "./filters";
import { judgedClaims } from "./judged-claims";
import { allTime, rollupScope, rollupsAnswer } from "./rollups";
import type { AnalyticsFilter } from "./schemas";
import { type Percentiles, percentilesOfHistogram } from "./shape";

export interface VerificationLatencyFigures {
  /** Claim → verify or block, whichever judged it. Milliseconds, to the whole second. */
  all: Percentiles;
  verified: Percentiles;
  blocked: Percentiles;
}

/**
 * How long a claim waits for its judgment: p50/p90/p99 of claim → verify and claim → block, and of
 * both. Counted per whole second in SQL and ranked from that histogram, so the figure never fetches
 * one row per claim. Filtered on the claim (time, claimant, source, the claimant's model).
 */
export async function verificationLatencyFigures(db: DbOrTx, f: AnalyticsFilter): Promise<VerificationLatencyFigures> {
  const modelFilter =
    f.model === null ? ALWAYS : sql`${sessionModelOf(db, sql`(SELECT models FROM sessions WHERE id = judged.session_id)`, sql`judged.claimant`)} = ${f.model}`;
  // Rows as arrays: one per distinct second waited, thousands of them.
  const rows = await rawValues<["verify" | "block", number, number]>(
    db,
    rollupsAnswer(f)
      ? sql`SELECT k1 AS move, k2 AS seconds, sum(n) AS count FROM analytics_rollups WHERE ${rollupScope([allTime(f) ? "judged_all" : "judged"], f, ["agent", "model"])} GROUP BY 1, 2 HAVING sum(n) > 0`
      : sql`
    SELECT move, (judged_at - claimed_at) / 1000 AS seconds, count(*) AS count
    FROM (${judgedClaims(db, f)}) AS judged
    WHERE ${modelFilter}
    GROUP BY 1, 2`,
  );
  const histogram = (move?: "verify" | "block") =>
    rows.filter((r) => move === undefined || r[0] === move).map(([, seconds, count]) => ({ value: seconds * 1000, count }));
  return {
    all: percentilesOfHistogram(histogram()),
    verified: percentilesOfHistogram(histogram("verify")),
    blocked: percentilesOfHistogram(histogram("block")),
  };
}
