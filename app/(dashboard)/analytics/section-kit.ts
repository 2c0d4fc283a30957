/** The shapes every analytics section is made of, and the small helpers the section shapers share. */
import type { FigureName } from "@/server/services/analytics/overview";
import type { Bucket } from "@/server/services/analytics/schemas";
import type { Cell, CellKind, Table } from "./table";

export interface Stat {
  label: string;
  value: Cell;
  kind: CellKind;
  /** What the value is made of ("40 of 170 claims"). */
  detail?: string;
  /** A stable name for the value (tests, and links to it). */
  id: string;
}

/** A chart over a table: `x` is a column index, `ys` the columns drawn (all of one kind). */
export interface ChartSpec {
  type: "line" | "bar" | "stacked";
  x: number;
  ys: number[];
}

export interface Block {
  id: string;
  title: string;
  table: Table;
  chart?: ChartSpec;
  /** Shown instead of the block when the table has no rows. */
  empty: string;
}

export interface Section {
  id: string;
  figure: FigureName;
  title: string;
  /** What is counted, and which time, agent and model the filters apply to. */
  about: string;
  stats: Stat[];
  blocks: Block[];
  /** Shown instead of the stats and blocks when the figure has nothing to show for these filters. */
  empty: string | null;
}

export interface ShapeContext {
  bucket: Bucket;
  /** Whether any filter narrows the figures (the empty states then say so). */
  filtered: boolean;
}

export const bucketColumn = (bucket: Bucket) => ({ label: bucket === "week" ? "Week" : "Day", kind: "bucket" as const });

/** "nothing for these filters" or, with no filter at all, how such data comes to exist. */
export function emptyText(ctx: ShapeContext, what: string, howToGetSome: string): string {
  return ctx.filtered ? `No ${what} for these filters.` : `No ${what} yet. ${howToGetSome}`;
}
