import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { bucketSql, equalsIfSet, sessionModelOf } from "./filters";
import { claims, judgedClaims } from "./judged-claims";
import { rollupScope, rollupsAnswer } from "./rollups";
import type { AnalyticsFilter } from "./schemas";
import { claimRatesBy, fillSeries, rate } from "./shape";

export interface ClaimRate {
  claims: number;
  /** Claims whose judgment was a block. */
  blocked: number;
  /** blocked / claims; null with no claims. */
  rate: number | null;
}

export interface FalseCompletionFigures extends ClaimRate {
  /** By claimant label, most claims first. */
  byAgent: (ClaimRate & { agent: string })[];
  /** By the claimant's model as its session recorded it (`sessions.models[agent type]`); null: not recorded. */
  byModel: (ClaimRate & { model: string | null })[];
  /** By the claim's bucket. */
  series: (ClaimRate & { bucket: number })[];
}

interface Row {
  agent: string;
  model: string | null;
  bucket: number;
  claims: number;
  blocked: number;
}

/**
 * False-completion rate: claims later blocked ÷ claims, by agent, by model and over time. A claim
 * belongs to the bucket of its own time (not its judgment's), so a bucket's rate is about the claims
 * made in it. Counted per session first, then each session's count is given its recorded model.
 */
export function falseCompletionFigures(db: DbOrTx, f: AnalyticsFilter): FalseCompletionFigures {
  return shapeFalseCompletion(rollupsAnswer(f) ? fromRollups(db, f) : fromHistory(db, f), f);
}

function fromRollups(db: DbOrTx, f: AnalyticsFilter): Row[] {
  return db.all<Row>(sql`
    SELECT agent, model, ${bucketSql(sql`day`, f.bucket)} AS bucket,
           sum(n) AS claims, sum(total) AS blocked
    FROM analytics_rollups WHERE ${rollupScope(["claim"], f, ["agent", "model"])}
    GROUP BY 1, 2, 3 HAVING claims > 0`);
}

function fromHistory(db: DbOrTx, f: AnalyticsFilter): Row[] {
  const claimBucket = bucketSql(sql`claimed_at`, f.bucket);
  return db.all<Row>(sql`
    WITH per_session AS (
      SELECT session_id, claimant, bucket, sum(claims) AS claims, sum(blocked) AS blocked FROM (
        SELECT session_id, claimant, ${claimBucket} AS bucket, 1 AS claims, 0 AS blocked FROM (${claims(f)})
        UNION ALL
        SELECT session_id, claimant, ${claimBucket} AS bucket, 0 AS claims, 1 AS blocked FROM (${judgedClaims(f)}) WHERE move = 'block'
      ) GROUP BY 1, 2, 3
    ),
    modeled AS (
      SELECT p.claimant AS agent, ${sessionModelOf(sql`s.models`, sql`p.claimant`)} AS model, p.bucket AS bucket, p.claims AS claims, p.blocked AS blocked
      FROM per_session p JOIN sessions s ON s.id = p.session_id
    )
    SELECT agent, model, bucket, sum(claims) AS claims, sum(blocked) AS blocked FROM modeled
    WHERE ${equalsIfSet(sql`model`, f.model)}
    GROUP BY 1, 2, 3`);
}

function shapeFalseCompletion(rows: Row[], f: AnalyticsFilter): FalseCompletionFigures {
  const total = claimRatesBy(rows, () => "all")[0] ?? { claims: 0, blocked: 0, rate: null };
  const byMost = (a: ClaimRate, b: ClaimRate) => b.claims - a.claims;
  return {
    claims: total.claims,
    blocked: total.blocked,
    rate: rate(total.blocked, total.claims),
    byAgent: claimRatesBy(rows, (r) => r.agent)
      .map(({ key, ...counts }) => ({ agent: key, ...counts }))
      .sort((a, b) => byMost(a, b) || a.agent.localeCompare(b.agent)),
    byModel: claimRatesBy(rows, (r) => r.model)
      .map(({ key, ...counts }) => ({ model: key, ...counts }))
      .sort((a, b) => byMost(a, b) || (a.model ?? "\uffff").localeCompare(b.model ?? "\uffff")),
    series: fillSeries(
      claimRatesBy(rows, (r) => r.bucket).map(({ key, ...counts }) => ({ bucket: key, ...counts })),
      f.bucket,
      (bucket) => ({ bucket, claims: 0, blocked: 0, rate: null }),
    ),
  };
}
