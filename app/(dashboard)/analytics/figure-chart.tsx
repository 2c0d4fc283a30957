"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { Bucket } from "@/server/services/analytics/schemas";
import { chartHeight } from "./chart-size";
import type { ChartSpec } from "./section-kit";
import { type Cell, type CellKind, type Table, formatBucket, formatCell, formatMs } from "./table";

/**
 * Series colours as CSS variables, a lighter shade of each in dark mode so lines and bars keep
 * their contrast on a dark card. Axis text and grid lines take the text colour (`currentColor`).
 */
const CHART_COLOURS =
  "[--chart-1:#0284c7] [--chart-2:#d97706] [--chart-3:#059669] [--chart-4:#e11d48] [--chart-5:#7c3aed] [--chart-6:#0d9488] [--chart-7:#c026d3] [--chart-8:#71717a] " +
  "dark:[--chart-1:#38bdf8] dark:[--chart-2:#fbbf24] dark:[--chart-3:#34d399] dark:[--chart-4:#fb7185] dark:[--chart-5:#a78bfa] dark:[--chart-6:#2dd4bf] dark:[--chart-7:#e879f9] dark:[--chart-8:#a1a1aa] " +
  "[--chart-tooltip-bg:#ffffff] [--chart-tooltip-border:#e4e4e7] dark:[--chart-tooltip-bg:#18181b] dark:[--chart-tooltip-border:#3f3f46]";
const PALETTE_SIZE = 8;
const colour = (i: number) => `var(--chart-${(i % PALETTE_SIZE) + 1})`;

const COMPACT = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
const TICK = { fill: "currentColor", fontSize: 11 };
const TOOLTIP_STYLE = { backgroundColor: "var(--chart-tooltip-bg)", borderColor: "var(--chart-tooltip-border)", borderRadius: 6, fontSize: 12 };
/** Most day labels under a time axis ("11-22" fits eight times in a phone-wide chart). */
const MAX_TIME_TICKS = 8;
/** Longest series whose points are marked with dots. */
const MAX_DOTTED_POINTS = 31;
/** Widest category label before it is cut (the table beside the chart has it whole). */
const MAX_LABEL_CHARS = 24;

function axisValue(value: number, kind: CellKind): string {
  if (kind === "rate") return `${Math.round(value * 100)}%`;
  // Axis steps are round: "5m", not "5m 0s".
  if (kind === "ms") return formatMs(value).replace(/ 0[smh]$/, "");
  return COMPACT.format(value);
}

const shortDay = (at: number) => new Date(at).toISOString().slice(5, 10);
const cut = (label: string) => (label.length > MAX_LABEL_CHARS ? `${label.slice(0, MAX_LABEL_CHARS - 1)}…` : label);

/**
 * A chart of some columns of a figure's table. Time runs left to right with day ticks; categories
 * (agents, models, outcomes…) are horizontal bars, whose labels stay readable at phone width.
 */
export function FigureChart({ table, chart, bucket }: { table: Table; chart: ChartSpec; bucket: Bucket }) {
  const xKind = table.columns[chart.x]?.kind ?? "text";
  const yKind = table.columns[chart.ys[0] ?? 0]?.kind ?? "count";
  const series = chart.ys.map((y, i) => ({ key: `s${i}`, name: table.columns[y]?.label ?? "", colour: colour(i) }));
  const data = table.rows.map((row) => {
    const point: Record<string, Cell> = { x: row[chart.x] ?? null };
    chart.ys.forEach((y, i) => (point[`s${i}`] = row[y] ?? null));
    return point;
  });
  const tooltip = (
    <Tooltip
      contentStyle={TOOLTIP_STYLE}
      labelStyle={{ color: "inherit", fontWeight: 600 }}
      cursor={chart.type === "line" ? { stroke: "currentColor", strokeOpacity: 0.3 } : { fill: "currentColor", fillOpacity: 0.08 }}
      labelFormatter={(label) => (xKind === "bucket" ? formatBucket(Number(label), bucket) : String(label))}
      formatter={(value) => formatCell(typeof value === "number" ? value : null, yKind, bucket)}
    />
  );
  const grid = (
    <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={chart.type !== "line" && xKind !== "bucket"} horizontal={xKind === "bucket"} />
  );
  const legend = series.length > 1 ? <Legend wrapperStyle={{ fontSize: 12 }} /> : null;
  const rateDomain: [number, number] | undefined = yKind === "rate" ? [0, 1] : undefined;

  if (xKind === "bucket") {
    // Every n-th day labelled, n chosen here: left to find room itself (minTickGap), Recharts puts
    // each of the 90-odd labels in the page to measure it, a forced layout each.
    const every = Math.max(1, Math.ceil(data.length / MAX_TIME_TICKS));
    const xAxis = <XAxis dataKey="x" tick={TICK} tickFormatter={(v: number) => shortDay(v)} interval={every - 1} stroke="currentColor" strokeOpacity={0.3} />;
    const yAxis = (
      <YAxis
        tick={TICK}
        width={48}
        domain={rateDomain}
        tickFormatter={(v: number) => axisValue(v, yKind)}
        stroke="currentColor"
        strokeOpacity={0.3}
        allowDecimals={yKind !== "count"}
      />
    );
    const style = { width: "100%", height: chartHeight(table, chart) };
    // A dot per point marks where a short series' values are; on a long one they run together into
    // a thick line, and each is a component Recharts draws (a 91-day chart with two series: 182).
    // The hovered point still gets its dot.
    const dots = data.length <= MAX_DOTTED_POINTS;
    return (
      <div className={`text-zinc-600 dark:text-zinc-400 ${CHART_COLOURS}`}>
        {chart.type === "line" ? (
          <LineChart responsive style={style} data={data} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            {grid}
            {xAxis}
            {yAxis}
            {tooltip}
            {legend}
            {series.map((s, i) => (
              // Lines after the first are dashed, so they stay apart where they overlap and without colour.
              <Line
                key={s.key}
                dataKey={s.key}
                name={s.name}
                stroke={s.colour}
                strokeWidth={2}
                strokeDasharray={i === 0 ? undefined : "5 3"}
                dot={dots ? { r: 2, fill: s.colour } : false}
                isAnimationActive={false}
                type="linear"
              />
            ))}
          </LineChart>
        ) : (
          <BarChart responsive style={style} data={data} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            {grid}
            {xAxis}
            {yAxis}
            {tooltip}
            {legend}
            {series.map((s) => (
              <Bar
                key={s.key}
                dataKey={s.key}
                name={s.name}
                fill={s.colour}
                stackId={chart.type === "stacked" ? "stack" : undefined}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        )}
      </div>
    );
  }

  // Categories: one row of bars per table row.
  const longest = Math.max(...data.map((d) => cut(String(d.x ?? "")).length), 4);
  const height = chartHeight(table, chart);
  return (
    <div className={`text-zinc-600 dark:text-zinc-400 ${CHART_COLOURS}`}>
      <BarChart
        layout="vertical"
        responsive
        style={{ width: "100%", height }}
        data={data}
        margin={{ top: 4, right: 16, bottom: 0, left: 0 }}
        barCategoryGap="20%"
      >
        {grid}
        <XAxis
          type="number"
          tick={TICK}
          domain={rateDomain}
          tickFormatter={(v: number) => axisValue(v, yKind)}
          stroke="currentColor"
          strokeOpacity={0.3}
          allowDecimals={yKind !== "count"}
        />
        <YAxis
          type="category"
          dataKey="x"
          tick={TICK}
          width={Math.min(170, longest * 6.5 + 12)}
          tickFormatter={(v: string) => cut(String(v))}
          interval={0}
          stroke="currentColor"
          strokeOpacity={0.3}
        />
        {tooltip}
        {legend}
        {series.map((s) => (
          <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.colour} stackId={chart.type === "stacked" ? "stack" : undefined} isAnimationActive={false} />
        ))}
      </BarChart>
    </div>
  );
}
