/**
 * The /activity view as it lives in the address bar: one parser (URL → view, with the problems it
 * ignored) and one writer (view → URL, defaults left out), as /sessions does. Pure: used by the
 * server page, the client components and the CSV route alike.
 */
import { SESSION_SOURCES, type SessionSource } from "@/server/domain/vocabulary";
import type { EventFilter, SearchEventsInput } from "@/server/services/events/schemas";
import { type SearchParamsInput, clipValue, trimmedParam } from "@/app/ui/search-params";

export const PAGE_SIZE = 50;

export interface ActivityView {
  /** One event type, exactly. */
  type: string | null;
  /** Who acted, exactly as recorded. */
  actor: string | null;
  session: string | null;
  source: SessionSource | null;
  /** First and last day (UTC, YYYY-MM-DD), both inclusive. */
  from: string | null;
  to: string | null;
  /** The id the previous page ended at; null on the first page. */
  before: number | null;
  /** 1-based page number, for display only: the cursor decides the rows. */
  page: number;
}

export const DEFAULT_VIEW: ActivityView = { type: null, actor: null, session: null, source: null, from: null, to: null, before: null, page: 1 };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TYPE = /^[A-Za-z0-9._:-]{1,100}$/;
const SESSION = /^[A-Za-z0-9._:-]{1,200}$/;

/** Read the view from search params; anything invalid is left out and reported, naming the parameter and the rule. */
export function parseActivityView(params: SearchParamsInput): { view: ActivityView; problems: string[] } {
  const get = (key: string) => trimmedParam(params, key);
  const problems: string[] = [];
  const view: ActivityView = { ...DEFAULT_VIEW };

  const type = get("type");
  if (type !== undefined) {
    if (TYPE.test(type)) view.type = type;
    else problems.push(`type: must be an event type such as task.claimed (got "${clipValue(type)}")`);
  }
  const actor = get("actor");
  if (actor !== undefined) {
    if (actor.length <= 200) view.actor = actor;
    else problems.push(`actor: must be at most 200 characters (got ${actor.length})`);
  }
  const session = get("session");
  if (session !== undefined) {
    if (SESSION.test(session)) view.session = session;
    else problems.push(`session: may contain only letters, digits and . _ : - (got "${clipValue(session)}")`);
  }
  const source = get("source");
  if (source !== undefined) {
    if ((SESSION_SOURCES as readonly string[]).includes(source)) view.source = source as SessionSource;
    else problems.push(`source: must be one of ${SESSION_SOURCES.join(", ")} (got "${clipValue(source)}")`);
  }
  view.from = day(get("from"), "from", problems);
  view.to = day(get("to"), "to", problems);
  if (view.from && view.to && view.from > view.to) {
    problems.push(`to: must not be before from (${view.to} < ${view.from})`);
    view.to = null;
  }
  const before = get("before");
  if (before !== undefined) {
    const id = Number(before);
    if (/^\d+$/.test(before) && Number.isSafeInteger(id) && id >= 1) {
      view.before = id;
      const page = Number(get("page") ?? "");
      view.page = Number.isInteger(page) && page >= 2 ? page : 2;
    } else problems.push(`before: must be an event id (got "${clipValue(before)}"); showing the first page`);
  }
  return { view, problems };
}

/** The filters as search params (no page): shared by the page's address and the CSV download's. */
export function filterParams(view: ActivityView): URLSearchParams {
  const params = new URLSearchParams();
  if (view.type) params.set("type", view.type);
  if (view.actor) params.set("actor", view.actor);
  if (view.session) params.set("session", view.session);
  if (view.source) params.set("source", view.source);
  if (view.from) params.set("from", view.from);
  if (view.to) params.set("to", view.to);
  return params;
}

/** The /activity address of a view, with defaults left out so links stay short and stable. */
export function activityHref(view: ActivityView): string {
  const params = filterParams(view);
  if (view.before !== null) {
    params.set("before", String(view.before));
    params.set("page", String(view.page));
  }
  const query = params.toString();
  return query ? `/activity?${query}` : "/activity";
}

/** Where the CSV of every event matching the view's filters downloads from (all pages, not just this one). */
export function csvHref(view: ActivityView): string {
  const query = filterParams(view).toString();
  return query ? `/api/activity/csv?${query}` : "/api/activity/csv";
}

/** The same view with some filters changed, back on its first page. */
export function withFilters(view: ActivityView, change: Partial<Omit<ActivityView, "before" | "page">>): ActivityView {
  return { ...view, ...change, before: null, page: 1 };
}

export function clearFilters(): ActivityView {
  return DEFAULT_VIEW;
}

export function hasFilters(view: ActivityView): boolean {
  return [view.type, view.actor, view.session, view.source, view.from, view.to].some((value) => value !== null);
}

/** What `events.search` is asked for the view's filters (days as whole UTC days). */
export function toFilter(view: ActivityView): EventFilter {
  return {
    ...(view.type ? { type: view.type } : {}),
    ...(view.actor ? { actor: view.actor } : {}),
    ...(view.session ? { sessionId: view.session } : {}),
    ...(view.source ? { source: view.source } : {}),
    ...(view.from ? { from: new Date(`${view.from}T00:00:00.000Z`) } : {}),
    ...(view.to ? { to: new Date(`${view.to}T23:59:59.999Z`) } : {}),
  };
}

/** The same input on the server (prefetch) and the client (query key). */
export function toSearchInput(view: ActivityView): SearchEventsInput {
  return { filter: toFilter(view), ...(view.before !== null ? { cursor: view.before } : {}), limit: PAGE_SIZE };
}

function day(value: string | undefined, name: string, problems: string[]): string | null {
  if (value === undefined) return null;
  const at = new Date(`${value}T00:00:00.000Z`);
  if (DAY.test(value) && !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value)) return value;
  problems.push(`${name}: must be a date as YYYY-MM-DD (got "${clipValue(value)}")`);
  return null;
}
