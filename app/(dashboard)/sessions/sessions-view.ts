/**
 * The /sessions view as it lives in the address bar: one parser (URL → view, with the problems it
 * ignored) and one writer (view → URL, defaults left out), so a link reproduces exactly what was
 * on screen and Back restores it. Pure: used by the server page and the client component alike.
 */
import { SESSION_SOURCES, SESSION_STATUSES, type SessionSource, type SessionStatus } from "@/server/domain/vocabulary";
import type { ListSessionsInput } from "@/server/services/session/list";
import { type SearchParamsInput, firstParam } from "@/app/ui/search-params";

export const PAGE_SIZE = 25;
export const SEARCH_MAX = 200;

export interface SessionsView {
  /** Text searched in ids and requirements. */
  q: string;
  status: SessionStatus | null;
  source: SessionSource | null;
  /** Only sessions with at least one blocked task. */
  blocked: boolean;
  /** First and last day started (UTC, YYYY-MM-DD), both inclusive. */
  from: string | null;
  to: string | null;
  order: "newest" | "oldest";
  /** The cursor the previous page returned; null on the first page. */
  after: string | null;
  /** 1-based page number, for display only: the cursor decides the rows. */
  page: number;
}

export const DEFAULT_VIEW: SessionsView = { q: "", status: null, source: null, blocked: false, from: null, to: null, order: "newest", after: null, page: 1 };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Read the view from search params; anything invalid is left out and reported, naming the parameter and the rule. */
export function parseSessionsView(params: SearchParamsInput): { view: SessionsView; problems: string[] } {
  const get = (key: string) => firstParam(params, key);
  const problems: string[] = [];
  const view: SessionsView = { ...DEFAULT_VIEW };

  const q = get("q")?.trim() ?? "";
  if (q.length > SEARCH_MAX) problems.push(`q: must be at most ${SEARCH_MAX} characters (got ${q.length})`);
  else view.q = q;

  view.status = oneOf(get("status"), SESSION_STATUSES, "status", problems);
  view.source = oneOf(get("source"), SESSION_SOURCES, "source", problems);

  const blocked = get("blocked");
  if (blocked === "1" || blocked === "true") view.blocked = true;
  else if (blocked !== undefined && blocked !== "" && blocked !== "0" && blocked !== "false") problems.push(`blocked: must be 1 or 0 (got "${blocked}")`);

  view.from = day(get("from"), "from", problems);
  view.to = day(get("to"), "to", problems);
  if (view.from && view.to && view.from > view.to) {
    problems.push(`to: must not be before from (${view.to} < ${view.from})`);
    view.to = null;
  }

  const order = get("order");
  if (order === "oldest") view.order = "oldest";
  else if (order !== undefined && order !== "" && order !== "newest") problems.push(`order: must be newest or oldest (got "${order}")`);

  const after = get("after");
  if (after) {
    if (isCursor(after)) {
      view.after = after;
      const page = Number(get("page") ?? "");
      view.page = Number.isInteger(page) && page >= 2 ? page : 2;
    } else problems.push("after: is not a cursor this list returned; showing the first page");
  }
  return { view, problems };
}

/** The /sessions address of a view, with defaults left out so links stay short and stable. */
export function sessionsHref(view: SessionsView): string {
  const params = new URLSearchParams();
  if (view.q) params.set("q", view.q);
  if (view.status) params.set("status", view.status);
  if (view.source) params.set("source", view.source);
  if (view.blocked) params.set("blocked", "1");
  if (view.from) params.set("from", view.from);
  if (view.to) params.set("to", view.to);
  if (view.order !== "newest") params.set("order", view.order);
  if (view.after) {
    params.set("after", view.after);
    params.set("page", String(view.page));
  }
  const query = params.toString();
  return query ? `/sessions?${query}` : "/sessions";
}

/** The same view with some filters changed, back on its first page. */
export function withFilters(view: SessionsView, change: Partial<Omit<SessionsView, "after" | "page">>): SessionsView {
  return { ...view, ...change, after: null, page: 1 };
}

/** The same view with every filter cleared (the sort stays), on its first page. */
export function clearFilters(view: SessionsView): SessionsView {
  return withFilters(view, { q: "", status: null, source: null, blocked: false, from: null, to: null });
}

export function hasFilters(view: SessionsView): boolean {
  return view.q !== "" || view.status !== null || view.source !== null || view.blocked || view.from !== null || view.to !== null;
}

/** What `session.list` is asked for this view: the same input on the server (prefetch) and the client (query key). */
export function toListInput(view: SessionsView): ListSessionsInput {
  return {
    ...(view.q ? { search: view.q } : {}),
    ...(view.status ? { status: view.status } : {}),
    ...(view.source ? { source: view.source } : {}),
    ...(view.blocked ? { hasBlocked: true } : {}),
    ...(view.from ? { startedFrom: new Date(`${view.from}T00:00:00.000Z`) } : {}),
    ...(view.to ? { startedTo: new Date(`${view.to}T23:59:59.999Z`) } : {}),
    order: view.order,
    ...(view.after ? { cursor: view.after } : {}),
    limit: PAGE_SIZE,
  };
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string, problems: string[]): T | null {
  if (value === undefined || value === "") return null;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  problems.push(`${name}: must be one of ${allowed.join(", ")} (got "${value}")`);
  return null;
}

function day(value: string | undefined, name: string, problems: string[]): string | null {
  if (value === undefined || value === "") return null;
  const at = new Date(`${value}T00:00:00.000Z`);
  if (DAY.test(value) && !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value)) return value;
  problems.push(`${name}: must be a date as YYYY-MM-DD (got "${value}")`);
  return null;
}

/**
 * Whether `value` has the shape of the list's keyset cursor (base64url of `[startedAtMs, id]`, see
 * server/services/session/list.ts). Checked here so a mangled link shows the first page with a
 * note instead of a failed request.
 */
function isCursor(value: string): boolean {
  if (value.length > 300 || !/^[A-Za-z0-9_-]+$/.test(value)) return false;
  try {
    const padded = value.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (value.length % 4)) % 4);
    const decoded: unknown = JSON.parse(atob(padded));
    return Array.isArray(decoded) && decoded.length === 2 && typeof decoded[0] === "number" && typeof decoded[1] === "string";
  } catch {
    return false;
  }
}
