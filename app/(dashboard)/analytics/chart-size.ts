import type { ChartSpec } from "./section-kit";
import type { Table } from "./table";

/** A time chart's height: the same whatever its length (the days share its width). */
const TIME_CHART_HEIGHT = 240;

/**
 * How tall a figure's chart is drawn, in pixels. Its placeholder, shown until the chart is drawn,
 * takes the same height: a chart drawn as it comes near the screen must not move what is below it
 * (a click aimed at a "Show as table" under it would land elsewhere).
 */
export function chartHeight(table: Table, chart: ChartSpec): number {
  if (table.columns[chart.x]?.kind === "bucket") return TIME_CHART_HEIGHT;
  // Categories: one row of bars per table row, a bar per series, the legend when there are several.
  const legend = chart.ys.length > 1;
  return Math.max(120, table.rows.length * (18 + 10 * chart.ys.length) + (legend ? 56 : 32));
}
