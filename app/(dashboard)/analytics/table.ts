/**
 * A figure's numbers as one table: the chart draws from it, the page shows it, the CSV writes it,
 * so the three cannot disagree. Cells hold raw values; a column's kind says how to show them.
 */
import type { Bucket } from "@/server/services/analytics/schemas";
import { type CsvValue, toCsv } from "./csv";

/**
 * text: as is; count: an integer; rate: a fraction 0–1 shown as a percentage; ms: a duration;
 * bucket: the start (epoch ms, UTC) of a day or a week.
 */
export type CellKind = "text" | "count" | "rate" | "ms" | "bucket";
export type Cell = string | number | null;

export interface Column {
  label: string;
  kind: CellKind;
}

export interface Table {
  columns: Column[];
  rows: Cell[][];
}

const COUNT = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** 0.2353 → "23.5%"; null (a rate of nothing) → "—". */
export function formatRate(rate: number | null): string {
  return rate === null ? "—" : `${(rate * 100).toFixed(1)}%`;
}

/** A duration to the second, down to the two largest units: "45s", "12m 5s", "3h 12m", "2d 4h". */
export function formatMs(ms: number | null): string {
  if (ms === null) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** The UTC day of an instant, YYYY-MM-DD. */
export const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);

export function formatBucket(at: number, bucket: Bucket): string {
  return bucket === "week" ? `Week of ${isoDay(at)}` : isoDay(at);
}

/** A cell as the page shows it. */
export function formatCell(value: Cell, kind: CellKind, bucket: Bucket): string {
  if (value === null) return "—";
  if (typeof value === "string") return value;
  switch (kind) {
    case "count":
      return COUNT.format(value);
    case "rate":
      return formatRate(value);
    case "ms":
      return formatMs(value);
    case "bucket":
      return formatBucket(value, bucket);
    default:
      return String(value);
  }
}

/** The header a CSV gives a column: the unit a raw value is in, where the page shows it another way. */
export function csvHeader(column: Column, bucket: Bucket): string {
  if (column.kind === "rate") return `${column.label} (fraction)`;
  if (column.kind === "ms") return `${column.label} (seconds)`;
  if (column.kind === "bucket") return bucket === "week" ? "Week starting (UTC)" : "Day (UTC)";
  return column.label;
}

/** A cell as the CSV holds it: numbers a spreadsheet can compute with. */
export function csvCell(value: Cell, kind: CellKind): CsvValue {
  if (value === null || typeof value === "string") return value;
  if (kind === "rate") return Math.round(value * 1e6) / 1e6;
  if (kind === "ms") return Math.round(value) / 1000;
  if (kind === "bucket") return isoDay(value);
  return value;
}

export function tableCsv(table: Table, bucket: Bucket): string {
  return toCsv(
    table.columns.map((column) => csvHeader(column, bucket)),
    table.rows.map((row) => row.map((value, i) => csvCell(value, table.columns[i]?.kind ?? "text"))),
  );
}
