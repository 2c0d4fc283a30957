"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { useTRPC } from "@/app/trpc/client";
import { controlClass } from "@/app/ui/field";
import { QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { useHydrated } from "@/app/ui/use-hydrated";
import { BUCKETS, type BucketChoice, type BucketInput, type GroupTable, autoBucket, formatTokens, rebucket, shapeGroups, shapeOverTime } from "./chart-data";
import { TokensByAgentChart, TokensOverTimeChart } from "./token-charts";

/** Tokens by agent and over time, each chart with its numbers as a table. */
export function TokensClient({ sessionId, initialBucket }: { sessionId: string; initialBucket: BucketChoice }) {
  const trpc = useTRPC();
  const byAgent = useQuery({ ...trpc.log.tokenSummary.queryOptions({ sessionId, by: "agent_type" }), select: shapeGroups });
  const byModel = useQuery({ ...trpc.log.tokenSummary.queryOptions({ sessionId, by: "model" }), select: shapeGroups });
  // Minutes from the server; hours and days are summed here, so changing the period needs no request.
  const minutes = useQuery(trpc.log.tokensOverTime.queryOptions({ sessionId, bucket: "minute" }));
  if (byAgent.data === undefined || byModel.data === undefined || minutes.data === undefined) {
    return (
      <QueryFallback query={[byAgent, byModel, minutes]} errorTitle="Could not load the token usage">
        <div aria-busy="true" aria-label="Loading token usage" className="h-80 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-900" />
      </QueryFallback>
    );
  }
  return <TokenFigures sessionId={sessionId} initialBucket={initialBucket} byAgent={byAgent.data} byModel={byModel.data} minutes={minutes.data} />;
}

function TokenFigures({
  sessionId,
  initialBucket,
  byAgent,
  byModel,
  minutes,
}: {
  sessionId: string;
  initialBucket: BucketChoice;
  byAgent: GroupTable;
  byModel: GroupTable;
  minutes: readonly BucketInput[];
}) {
  const [choice, setChoice] = useState(initialBucket);
  const bucketId = useId();
  // Charts measure their container, so they draw only in the browser; the tables carry the same numbers on the server.
  const inBrowser = useHydrated();
  const bucket = choice === "auto" ? autoBucket(minutes) : choice;
  const overTime = useMemo(() => shapeOverTime(rebucket(minutes, bucket), bucket), [minutes, bucket]);

  if (byAgent.rows.length === 0) {
    return (
      <EmptyState title="No token usage recorded in this session.">
        Agents report what they use with <Code>proofgate log-tokens {sessionId} developer 15000 developer_1</Code>.
      </EmptyState>
    );
  }

  const chooseBucket = (next: BucketChoice) => {
    setChoice(next);
    const url = new URL(window.location.href);
    if (next === "auto") url.searchParams.delete("bucket");
    else url.searchParams.set("bucket", next);
    window.history.replaceState(window.history.state, "", url);
  };

  return (
    <div className="space-y-6">
      <p className="text-sm" data-testid="token-total">
        <span className="text-2xl font-semibold tabular-nums">{formatTokens(byAgent.tokens)}</span> tokens in {formatTokens(byAgent.entries)} report
        {byAgent.entries === 1 ? "" : "s"}
      </p>

      <section aria-labelledby="tokens-by-agent" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
        <h3 id="tokens-by-agent" className="mb-3 text-base font-semibold">
          By agent
        </h3>
        <figure aria-label="Chart of tokens by agent">{inBrowser && <TokensByAgentChart rows={byAgent.rows} />}</figure>
        <GroupTableView table={byAgent} caption="Tokens by agent" nameHeader="Agent" />
      </section>

      <section aria-labelledby="tokens-over-time" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
          <h3 id="tokens-over-time" className="text-base font-semibold">
            Over time (UTC)
          </h3>
          <div className="text-sm">
            <label htmlFor={bucketId} className="mb-1 block font-medium">
              Period
            </label>
            <select id={bucketId} className={controlClass} value={choice} onChange={(e) => chooseBucket(e.currentTarget.value as BucketChoice)}>
              <option value="auto">automatic (per {choice === "auto" ? bucket : autoBucket(minutes)})</option>
              {BUCKETS.map((b) => (
                <option key={b} value={b}>
                  per {b}
                </option>
              ))}
            </select>
          </div>
        </div>
        <figure aria-label="Chart of tokens over time">{inBrowser && <TokensOverTimeChart series={overTime} />}</figure>
        <div className="mt-3 max-h-96 overflow-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Tokens per {bucket}</caption>
            <thead className="sticky top-0 bg-white text-xs text-zinc-500 uppercase dark:bg-zinc-900">
              <tr>
                <th scope="col" className="py-1 pr-3">
                  Period starting
                </th>
                <th scope="col" className="py-1 pr-3 text-right">
                  Tokens
                </th>
                <th scope="col" className="py-1 pr-3 text-right">
                  Running total
                </th>
                <th scope="col" className="py-1 pr-3">
                  By agent
                </th>
              </tr>
            </thead>
            <tbody>
              {overTime.rows.map((row) => (
                <tr key={row.start} className="border-t border-zinc-100 align-top dark:border-zinc-800">
                  <th scope="row" className="py-1 pr-3 font-mono text-xs font-normal whitespace-nowrap">
                    {row.label}
                  </th>
                  <td className="py-1 pr-3 text-right tabular-nums">{formatTokens(row.tokens)}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{formatTokens(row.cumulative)}</td>
                  <td className="py-1 pr-3 text-xs text-zinc-600 dark:text-zinc-400">
                    {overTime.agents
                      .filter((agent) => (row.byAgent[agent] ?? 0) > 0)
                      .map((agent) => `${agent} ${formatTokens(row.byAgent[agent]!)}`)
                      .join(" · ")}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="tokens-by-model" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
        <h3 id="tokens-by-model" className="mb-3 text-base font-semibold">
          By model
        </h3>
        <GroupTableView table={byModel} caption="Tokens by model" nameHeader="Model" />
      </section>
    </div>
  );
}

function GroupTableView({ table, caption, nameHeader }: { table: GroupTable; caption: string; nameHeader: string }) {
  return (
    <div className="mt-3 overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="text-xs text-zinc-500 uppercase">
          <tr>
            <th scope="col" className="py-1 pr-3">
              {nameHeader}
            </th>
            <th scope="col" className="py-1 pr-3 text-right">
              Tokens
            </th>
            <th scope="col" className="py-1 pr-3 text-right">
              Reports
            </th>
            <th scope="col" className="py-1 pr-3 text-right">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.name} className="border-t border-zinc-100 dark:border-zinc-800">
              <th scope="row" className="py-1 pr-3 font-normal break-all">
                {row.name}
              </th>
              <td className="py-1 pr-3 text-right tabular-nums">{formatTokens(row.tokens)}</td>
              <td className="py-1 pr-3 text-right tabular-nums">{formatTokens(row.entries)}</td>
              <td className="py-1 pr-3 text-right tabular-nums">{row.share.toFixed(1)}%</td>
            </tr>
          ))}
        </tbody>
        <tfoot className="border-t-2 border-zinc-200 font-medium dark:border-zinc-700">
          <tr>
            <th scope="row" className="py-1 pr-3">
              Total
            </th>
            <td className="py-1 pr-3 text-right tabular-nums">{formatTokens(table.tokens)}</td>
            <td className="py-1 pr-3 text-right tabular-nums">{formatTokens(table.entries)}</td>
            <td className="py-1 pr-3 text-right tabular-nums">{table.rows.length > 0 ? "100%" : "—"}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
