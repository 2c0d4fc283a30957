import { z } from "zod";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";
import { parseInput } from "../parse-input";
import { Label } from "../schemas-common";

export const BUCKETS = ["day", "week"] as const;
export type Bucket = (typeof BUCKETS)[number];

/** A Date, or epoch milliseconds (UTC) as the command line and plain-JSON clients send it. */
const Instant = z
  .union([z.date(), z.number().int().min(0).max(8_640_000_000_000_000)], { error: "must be a date or epoch milliseconds" })
  .transform((value) => (value instanceof Date ? value : new Date(value)));

/**
 * The one input every `analytics.*` query takes. `from`/`to` bound the time of what each figure
 * measures (a claim's time, a check's time, an attempt's time…; criteria use their session's start),
 * both inclusive. `source` narrows to sessions of that source; `agent` (a label such as
 * `developer_1`) and `model` narrow the figures that have an agent or a model (see `FIGURE_FILTERS`).
 */
export const AnalyticsInput = z
  .strictObject({
    from: Instant.optional(),
    to: Instant.optional(),
    source: z.enum(SESSION_SOURCES).optional(),
    agent: Label.optional(),
    model: Label.optional(),
    /** Width of the buckets of every series: UTC days, or ISO weeks (starting Monday, UTC). */
    bucket: z.enum(BUCKETS).default("day"),
  })
  .superRefine((input, ctx) => {
    if (input.from && input.to && input.to.getTime() < input.from.getTime()) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from", params: { rule: "analytics.range_reversed" } });
    }
  });
export type AnalyticsInput = z.input<typeof AnalyticsInput>;

/** The parsed input, as the figure queries use it: times as epoch ms, absent filters as null. */
export interface AnalyticsFilter {
  from: number | null;
  to: number | null;
  source: (typeof SESSION_SOURCES)[number] | null;
  agent: string | null;
  model: string | null;
  bucket: Bucket;
  /** Compute from the history tables even where the rollups could answer (tests compare the two). */
  fromHistory?: boolean;
}

/**
 * Parse for direct callers (CLI, tests) the way the API does, refusing with a ValidationError that
 * names the first offending field and its rule.
 */
export function parseAnalyticsInput(raw: unknown): AnalyticsFilter {
  const input = parseInput(AnalyticsInput, raw ?? {}, "analytics.invalid_input");
  return {
    from: input.from?.getTime() ?? null,
    to: input.to?.getTime() ?? null,
    source: input.source ?? null,
    agent: input.agent ?? null,
    model: input.model ?? null,
    bucket: input.bucket,
  };
}
