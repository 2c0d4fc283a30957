import { rawAll } from "@/db/query";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { bucketSql, equalsIfSet, inRange, inSource } from "./filters";
import type { AnalyticsFilter } from "./schemas";
import { rollupScope, rollupsAnswer } from "./rollups";
import { fillSeries } from "./shape";

export interface TokenFigures {
  tokens: number;
  /** Most tokens first. */
  byAgentType: { agentType: string; tokens: number }[];
  series: { bucket: number; tokens: number; byAgentType: Record<string, number> }[];
}

/** Token usage by agent type over time. Agent: the row's agent id (its label); model: the row's model. */
export async function tokenFigures(db: DbOrTx, f: AnalyticsFilter): Promise<TokenFigures> {
  const rows = await rawAll<{ bucket: number; agentType: string; tokens: number }>(
    db,
    rollupsAnswer(f)
      ? sql`SELECT ${bucketSql(sql`day`, f.bucket)} AS bucket, k1 AS "agentType", sum(total) AS tokens FROM analytics_rollups
            WHERE ${rollupScope(["tokens"], f, ["agent", "model"])} GROUP BY 1, 2 HAVING sum(n) > 0`
      : sql`
    SELECT ${bucketSql(sql`"timestamp"`, f.bucket)} AS bucket, agent_type AS "agentType", sum(tokens_estimated) AS tokens FROM token_usage
    WHERE ${inRange(sql`"timestamp"`, f)} AND ${equalsIfSet(sql`agent_id`, f.agent)} AND ${equalsIfSet(sql`model`, f.model)} AND ${inSource(sql`session_id`, f)}
    GROUP BY 1, 2`,
  );
  const byType = new Map<string, number>();
  const byBucket = new Map<number, { bucket: number; tokens: number; byAgentType: Record<string, number> }>();
  for (const row of rows) {
    byType.set(row.agentType, (byType.get(row.agentType) ?? 0) + row.tokens);
    const point = byBucket.get(row.bucket) ?? { bucket: row.bucket, tokens: 0, byAgentType: {} };
    point.tokens += row.tokens;
    point.byAgentType[row.agentType] = (point.byAgentType[row.agentType] ?? 0) + row.tokens;
    byBucket.set(row.bucket, point);
  }
  return {
    tokens: rows.reduce((n, r) => n + r.tokens, 0),
    byAgentType: [...byType.entries()]
      .map(([agentType, tokens]) => ({ agentType, tokens }))
      .sort((a, b) => b.tokens - a.tokens || a.agentType.localeCompare(b.agentType)),
    series: fillSeries([...byBucket.values()], f.bucket, (bucket) => ({ bucket, tokens: 0, byAgentType: {} })),
  };
}
