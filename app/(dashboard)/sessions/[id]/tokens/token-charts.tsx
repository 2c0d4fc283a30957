"use client";

import { Bar, BarChart, type BarShapeProps, CartesianGrid, ComposedChart, Legend, Line, Rectangle, Tooltip, XAxis, YAxis } from "recharts";
import { type GroupRow, type TimeSeries, formatTokens } from "./chart-data";

/** Colours readable on white and on zinc-900. */
const PALETTE = ["#0284c7", "#7c3aed", "#059669", "#d97706", "#e11d48", "#0891b2", "#65a30d", "#c026d3", "#64748b"];
const colour = (i: number) => PALETTE[i % PALETTE.length]!;

const TOOLTIP = {
  contentStyle: { backgroundColor: "#18181b", border: "none", borderRadius: 6, color: "#f4f4f5", fontSize: 12 },
  itemStyle: { color: "#f4f4f5" },
  labelStyle: { color: "#f4f4f5" },
};
const TICK = { fill: "currentColor", fontSize: 12 };
const compact = new Intl.NumberFormat("en-US", { notation: "compact" });
const tokens = (value: unknown) => (typeof value === "number" ? formatTokens(value) : String(value));

/** Tokens per agent as horizontal bars, largest first. */
export function TokensByAgentChart({ rows }: { rows: GroupRow[] }) {
  return (
    <div className="text-zinc-600 dark:text-zinc-400">
      <BarChart
        responsive
        layout="vertical"
        data={rows}
        style={{ width: "100%", height: Math.max(120, rows.length * 36 + 40) }}
        margin={{ left: 8, right: 16 }}
      >
        <CartesianGrid horizontal={false} stroke="currentColor" strokeOpacity={0.15} />
        <XAxis type="number" tick={TICK} tickFormatter={(n: number) => compact.format(n)} stroke="currentColor" />
        <YAxis type="category" dataKey="name" tick={TICK} width={150} stroke="currentColor" />
        <Tooltip {...TOOLTIP} cursor={{ fillOpacity: 0.1 }} formatter={tokens} />
        {/* Each agent keeps the colour it has in the chart over time. */}
        <Bar dataKey="tokens" name="Tokens" isAnimationActive={false} shape={(props: BarShapeProps) => <Rectangle {...props} fill={colour(props.index)} />} />
      </BarChart>
    </div>
  );
}

/** Tokens per period stacked by agent, with the running total as a line on its own axis. */
export function TokensOverTimeChart({ series }: { series: TimeSeries }) {
  return (
    <div className="text-zinc-600 dark:text-zinc-400">
      <ComposedChart responsive data={series.rows} style={{ width: "100%", height: 320 }} margin={{ left: 8, right: 8 }}>
        <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
        <XAxis dataKey="label" tick={TICK} stroke="currentColor" minTickGap={24} />
        <YAxis yAxisId="period" tick={TICK} tickFormatter={(n: number) => compact.format(n)} stroke="currentColor" />
        <YAxis yAxisId="total" orientation="right" tick={TICK} tickFormatter={(n: number) => compact.format(n)} stroke="currentColor" />
        <Tooltip {...TOOLTIP} cursor={{ fillOpacity: 0.1 }} formatter={tokens} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {series.agents.map((agent, i) => (
          <Bar
            key={agent}
            yAxisId="period"
            stackId="agents"
            dataKey={(row: TimeSeries["rows"][number]) => row.byAgent[agent] ?? 0}
            name={agent}
            fill={colour(i)}
            isAnimationActive={false}
          />
        ))}
        <Line
          yAxisId="total"
          type="monotone"
          dataKey="cumulative"
          name="Running total"
          stroke="currentColor"
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
      </ComposedChart>
    </div>
  );
}
