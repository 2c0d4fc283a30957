import { rawAll, rawValues } from "@/db/query";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { bucketSql, equalsIfSet, sessionModelOf } from "./filters";
import { claims, judgedClaims } from "./judged-claims";
import { rollupScope, rollupsAnswer } from "./rollups";
import type { AnalyticsFilter } from "./schemas";
import { type ClaimCounts, claimRatesBy, fillSeries, rate } from "./shape";

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

/** Claims and the blocked among them, grouped three ways. */
interface Groups {
  byAgent: (ClaimCounts & { key: string })[];
  byModel: (ClaimCounts & { key: string | null })[];
  byBucket: (ClaimCounts & { key: number })[];
}

/**
 * False-completion rate: claims later blocked ÷ claims, by agent, by model and over time. A claim
 * belongs to the bucket of its own time (not its judgment's), so a bucket's rate is about the claims
 * made in it. Counted per session first, then each session's count is given its recorded model.
 */
export async function falseCompletionFigures(db: DbOrTx, f: AnalyticsFilter): Promise<FalseCompletionFigures> {
  return shapeFalseCompletion(rollupsAnswer(f) ? await fromRollups(db, f) : groupRows(await fromHistory(db, f)), f);
}

/** Each grouping summed by SQL from the rollups: a few dozen rows, not one per agent × model × day. */
async function fromRollups(db: DbOrTx, f: AnalyticsFilter): Promise<Groups> {
  const scope = rollupScope(["claim"], f, ["agent", "model"]);
  // The bucket has a column of its own (PostgreSQL's UNION puts no numbers in a column of texts), and
  // comes first: PostgreSQL types each column by the first branches, and two NULLs would make it text.
  const rows = await rawValues<["agent" | "model" | "bucket", string | null, number | null, number, number]>(
    db,
    sql`
    SELECT 'bucket' AS kind, NULL AS label, ${bucketSql(sql`day`, f.bucket)} AS bucket, sum(n) AS claims, sum(total) AS blocked FROM analytics_rollups WHERE ${scope} GROUP BY 3 HAVING sum(n) > 0
    UNION ALL SELECT 'agent', agent, NULL, sum(n), sum(total) FROM analytics_rollups WHERE ${scope} GROUP BY 2 HAVING sum(n) > 0
    UNION ALL SELECT 'model', model, NULL, sum(n), sum(total) FROM analytics_rollups WHERE ${scope} GROUP BY 2 HAVING sum(n) > 0`,
  );
  const of = <K>(by: string) =>
    rows.filter((r) => r[0] === by).map(([, label, bucket, claims, blocked]) => ({ key: (by === "bucket" ? bucket : label) as K, claims, blocked }));
  return { byAgent: of<string>("agent"), byModel: of<string | null>("model"), byBucket: of<number>("bucket") };
}

async function fromHistory(db: DbOrTx, f: AnalyticsFilter): Promise<Row[]> {
  const claimBucket = bucketSql(sql`claimed_at`, f.bucket);
  return await rawAll<Row>(
    db,
    sql`
    WITH per_session AS (
      SELECT session_id, claimant, bucket, sum(claims) AS claims, sum(blocked) AS blocked FROM (
        SELECT session_id, claimant, ${claimBucket} AS bucket, 1 AS claims, 0 AS blocked FROM (${claims(f)}) AS made
        UNION ALL
        SELECT session_id, claimant, ${claimBucket} AS bucket, 0 AS claims, 1 AS blocked FROM (${judgedClaims(db, f)}) AS judged WHERE move = 'block'
      ) AS counted GROUP BY 1, 2, 3
    ),
    modeled AS (
      SELECT p.claimant AS agent, ${sessionModelOf(db, sql`s.models`, sql`p.claimant`)} AS model, p.bucket AS bucket, p.claims AS claims, p.blocked AS blocked
      FROM per_session p JOIN sessions s ON s.id = p.session_id
    )
    SELECT agent, model, bucket, sum(claims) AS claims, sum(blocked) AS blocked FROM modeled
    WHERE ${equalsIfSet(sql`model`, f.model)}
    GROUP BY 1, 2, 3`,
  );
}

function groupRows(rows: Row[]): Groups {
  const strip = <K>({ key, claims, blocked }: ClaimCounts & { key: K }) => ({ key, claims, blocked });
  return {
    byAgent: claimRatesBy(rows, (r) => r.agent).map(strip),
    byModel: claimRatesBy(rows, (r) => r.model).map(strip),
    byBucket: claimRatesBy(rows, (r) => r.bucket).map(strip),
  };
}

function shapeFalseCompletion(groups: Groups, f: AnalyticsFilter): FalseCompletionFigures {
  const total = groups.byBucket.reduce((t, g) => ({ claims: t.claims + g.claims, blocked: t.blocked + g.blocked }), { claims: 0, blocked: 0 });
  const byMost = (a: ClaimRate, b: ClaimRate) => b.claims - a.claims;
  const withRate = <T extends ClaimCounts>(g: T) => ({ ...g, rate: rate(g.blocked, g.claims) });
  return {
    claims: total.claims,
    blocked: total.blocked,
    rate: rate(total.blocked, total.claims),
    byAgent: groups.byAgent.map(({ key, ...counts }) => withRate({ agent: key, ...counts })).sort((a, b) => byMost(a, b) || a.agent.localeCompare(b.agent)),
    byModel: groups.byModel
      .map(({ key, ...counts }) => withRate({ model: key, ...counts }))
      .sort((a, b) => byMost(a, b) || (a.model ?? "\uffff").localeCompare(b.model ?? "\uffff")),
    series: fillSeries(
      groups.byBucket.map(({ key, ...counts }) => withRate({ bucket: key, ...counts })),
      f.bucket,
      (bucket) => ({ bucket, claims: 0, blocked: 0, rate: null }),
    ),
  };
}
