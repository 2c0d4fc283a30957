/**
 * The /approvals view as it lives in the address bar: one parser (URL → view, with the problems it
 * ignored) and one writer (view → URL, defaults left out), as /sessions and /activity do. Pure:
 * used by the server page and the client alike, so both ask the API the same question.
 */
import { SESSION_SOURCES, type SessionSource } from "@/server/domain/vocabulary";
import type { InboxCountInput, InboxInput } from "@/server/services/approvals/schemas";
import { type SearchParamsInput, clipValue, trimmedParam } from "@/app/ui/search-params";

/**
 * A first page small enough to load fast; later pages load on demand ("Load more"). On 10,000 demo
 * sessions a card with its share of the page's data is about 5 KB of HTML: 25 cards made a 152 KB
 * page, over the 150 KB target (issue 19); 20 make about 126 KB.
 */
export const PAGE_SIZE = 20;

/** How long a task has waited since it was blocked, at least: the choices offered, in hours. */
export const AGES = { "1h": 1, "4h": 4, "1d": 24, "3d": 72, "7d": 168 } as const;
export type Age = keyof typeof AGES;
export const AGE_LABEL: Record<Age, string> = { "1h": "1 hour", "4h": "4 hours", "1d": "1 day", "3d": "3 days", "7d": "1 week" };

export const RESET_FILTERS = ["requested", "none"] as const;
export type ResetFilter = (typeof RESET_FILTERS)[number];

export interface InboxView {
  session: string | null;
  source: SessionSource | null;
  /** Waiting at least this long. */
  age: Age | null;
  /** A reset requested, or not. */
  reset: ResetFilter | null;
  /** Who blocked it, exactly as recorded. */
  blockedBy: string | null;
}

export const DEFAULT_VIEW: InboxView = { session: null, source: null, age: null, reset: null, blockedBy: null };

const SESSION = /^[A-Za-z0-9._:-]{1,200}$/;

/** Read the view from search params; anything invalid is left out and reported, naming the parameter and the rule. */
export function parseInboxView(params: SearchParamsInput): { view: InboxView; problems: string[] } {
  const get = (key: string) => trimmedParam(params, key);
  const problems: string[] = [];
  const view: InboxView = { ...DEFAULT_VIEW };
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
  const age = get("age");
  if (age !== undefined) {
    if (Object.hasOwn(AGES, age)) view.age = age as Age;
    else problems.push(`age: must be one of ${Object.keys(AGES).join(", ")} (got "${clipValue(age)}")`);
  }
  const reset = get("reset");
  if (reset !== undefined) {
    if ((RESET_FILTERS as readonly string[]).includes(reset)) view.reset = reset as ResetFilter;
    else problems.push(`reset: must be requested or none (got "${clipValue(reset)}")`);
  }
  const blockedBy = get("blockedBy");
  if (blockedBy !== undefined) {
    if (blockedBy.length <= 200) view.blockedBy = blockedBy;
    else problems.push(`blockedBy: must be at most 200 characters (got ${blockedBy.length})`);
  }
  return { view, problems };
}

/** The /approvals address of a view, with defaults left out so links stay short and stable. */
export function inboxHref(view: InboxView): string {
  const params = new URLSearchParams();
  if (view.session) params.set("session", view.session);
  if (view.source) params.set("source", view.source);
  if (view.age) params.set("age", view.age);
  if (view.reset) params.set("reset", view.reset);
  if (view.blockedBy) params.set("blockedBy", view.blockedBy);
  const query = params.toString();
  return query ? `/approvals?${query}` : "/approvals";
}

export function hasFilters(view: InboxView): boolean {
  return Object.values(view).some((value) => value !== null);
}

/** What `task.inboxCount` is asked: the filters only. */
export function toCountInput(view: InboxView): InboxCountInput {
  return {
    ...(view.session ? { sessionId: view.session } : {}),
    ...(view.source ? { source: view.source } : {}),
    ...(view.age ? { minAgeHours: AGES[view.age] } : {}),
    ...(view.reset ? { resetRequested: view.reset === "requested" } : {}),
    ...(view.blockedBy ? { blockedBy: view.blockedBy } : {}),
  };
}

/** What `task.inbox` is asked for the first page: the same on the server (prefetch) and the client (query key). */
export function toInboxInput(view: InboxView): InboxInput {
  return { ...toCountInput(view), limit: PAGE_SIZE };
}

export const inboxPaging = { getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor };
