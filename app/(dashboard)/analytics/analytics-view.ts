/**
 * The /analytics filters as they live in the address bar: one parser (URL → view, with the problems
 * it left out) and one writer (view → URL, defaults left out), so a link reproduces what was on
 * screen and Back restores it; and the one mapping from a view to `analytics.overview`'s input, used
 * by the server's prefetch and the client's query alike so both ask for the same thing.
 */
import { SESSION_SOURCES, type SessionSource } from "@/server/domain/vocabulary";
import type { AnalyticsInput, Bucket } from "@/server/services/analytics/schemas";
import { type SearchParamsInput, firstParam } from "@/app/ui/search-params";

export const BUCKETS = ["day", "week"] as const satisfies readonly Bucket[];
/** As `Label` in the API: an agent label or a model name. */
export const LABEL_MAX = 200;
const DAY_MS = 86_400_000;

export interface AnalyticsView {
  /** First and last day (UTC, YYYY-MM-DD), both inclusive. */
  from: string | null;
  to: string | null;
  source: SessionSource | null;
  /** An agent label such as `developer_1`. */
  agent: string | null;
  model: string | null;
  bucket: Bucket;
}

export const DEFAULT_VIEW: AnalyticsView = { from: null, to: null, source: null, agent: null, model: null, bucket: "day" };

/** Read the view from search params; anything invalid is left out and reported, naming the parameter and the rule. */
export function parseAnalyticsView(params: SearchParamsInput): { view: AnalyticsView; problems: string[] } {
  const get = (key: string) => firstParam(params, key);
  const problems: string[] = [];
  const view: AnalyticsView = { ...DEFAULT_VIEW };

  view.from = day(get("from"), "from", problems);
  view.to = day(get("to"), "to", problems);
  if (view.from && view.to && view.from > view.to) {
    problems.push(`to: must not be before from (${view.to} < ${view.from})`);
    view.to = null;
  }

  const source = get("source");
  if (source) {
    if ((SESSION_SOURCES as readonly string[]).includes(source)) view.source = source as SessionSource;
    else problems.push(`source: must be one of ${SESSION_SOURCES.join(", ")} (got "${source}")`);
  }
  view.agent = label(get("agent"), "agent", problems);
  view.model = label(get("model"), "model", problems);

  const bucket = get("bucket");
  if (bucket === "week") view.bucket = "week";
  else if (bucket !== undefined && bucket !== "" && bucket !== "day") problems.push(`bucket: must be day or week (got "${bucket}")`);
  return { view, problems };
}

/** The query string of a view (with its `?`, or "" for the defaults). */
export function analyticsSearch(view: AnalyticsView): string {
  const params = new URLSearchParams();
  if (view.from) params.set("from", view.from);
  if (view.to) params.set("to", view.to);
  if (view.source) params.set("source", view.source);
  if (view.agent) params.set("agent", view.agent);
  if (view.model) params.set("model", view.model);
  if (view.bucket !== DEFAULT_VIEW.bucket) params.set("bucket", view.bucket);
  const search = params.toString();
  return search ? `?${search}` : "";
}

export const analyticsHref = (view: AnalyticsView) => `/analytics${analyticsSearch(view)}`;

export function hasFilters(view: AnalyticsView): boolean {
  return view.from !== null || view.to !== null || view.source !== null || view.agent !== null || view.model !== null;
}

/** The filters cleared; the bucket width is a way of looking, not a filter, so it stays. */
export const clearFilters = (view: AnalyticsView): AnalyticsView => ({ ...DEFAULT_VIEW, bucket: view.bucket });

/** The start of a UTC day, epoch ms. */
export const dayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

/**
 * `analytics.overview`'s input for a view: whole UTC days, so `to` is the last millisecond of its
 * day (the API's range is inclusive at both ends). Times travel as epoch ms, which the API accepts
 * and which hash the same in the server's prefetch and the browser's query key.
 */
export function toOverviewInput(view: AnalyticsView): AnalyticsInput {
  return {
    ...(view.from && { from: dayStart(view.from) }),
    ...(view.to && { to: dayStart(view.to) + DAY_MS - 1 }),
    ...(view.source && { source: view.source }),
    ...(view.agent && { agent: view.agent }),
    ...(view.model && { model: view.model }),
    bucket: view.bucket,
  };
}

/** A whole, real calendar day from 1970 on (the API takes no earlier instant). */
export function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value < "1970-01-01") return false;
  const at = dayStart(value);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === value;
}

function day(value: string | undefined, name: string, problems: string[]): string | null {
  if (value === undefined || value === "") return null;
  if (isDay(value)) return value;
  problems.push(`${name}: must be a day as YYYY-MM-DD from 1970-01-01 on (got "${value}")`);
  return null;
}

function label(value: string | undefined, name: string, problems: string[]): string | null {
  const trimmed = value?.trim() ?? "";
  if (trimmed === "") return null;
  if (trimmed.length <= LABEL_MAX) return trimmed;
  problems.push(`${name}: must be at most ${LABEL_MAX} characters (got ${trimmed.length})`);
  return null;
}
