import { type SearchParamsInput, firstParam } from "@/app/ui/search-params";
import { LOG_TYPES, REASONING_PHASES } from "@/server/domain/vocabulary";

export type LogType = (typeof LOG_TYPES)[number];
export type ReasoningPhase = (typeof REASONING_PHASES)[number];
export { LOG_TYPES, REASONING_PHASES };

/** Rows per request; "Load older" fetches the next page by keyset, never by offset. */
export const LOG_PAGE_SIZE = 50;

/** The longest agent name or search text the API takes. */
const MAX_FILTER_TEXT = 200;

/** The timeline's filters, as kept in the URL (`?agent=&type=&phase=&q=`). */
export interface LogFilters {
  agent?: string;
  type?: LogType;
  phase?: ReasoningPhase;
  q?: string;
}

const oneOf = <T extends string>(list: readonly T[], value: string | undefined): T | undefined =>
  (list as readonly string[]).includes(value ?? "") ? (value as T) : undefined;

function textParam(value: string | undefined): string | undefined {
  const trimmed = value?.trim().slice(0, MAX_FILTER_TEXT);
  return trimmed ? trimmed : undefined;
}

/**
 * Filters from a URL: unknown types and phases are dropped rather than sent, text is trimmed to
 * what the API takes, and a phase only applies to reasoning (with another type it is dropped).
 */
export function readLogFilters(params: SearchParamsInput): LogFilters {
  return normalizeLogFilters({
    agent: firstParam(params, "agent"),
    type: firstParam(params, "type") as LogType,
    phase: firstParam(params, "phase") as ReasoningPhase,
    q: firstParam(params, "q"),
  });
}

/** The same rules for filters a form produced. */
export function normalizeLogFilters(filters: LogFilters): LogFilters {
  const type = oneOf(LOG_TYPES, filters.type);
  const phase = type === undefined || type === "reasoning" ? oneOf(REASONING_PHASES, filters.phase) : undefined;
  const out: LogFilters = {};
  const agent = textParam(filters.agent);
  const q = textParam(filters.q);
  if (agent) out.agent = agent;
  if (type) out.type = type;
  if (phase) out.phase = phase;
  if (q) out.q = q;
  return out;
}

/** The URL query for the filters, in a stable order; empty when nothing is filtered. */
export function logFiltersQuery(filters: LogFilters): string {
  const params = new URLSearchParams();
  for (const key of ["agent", "type", "phase", "q"] as const) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  const query = params.toString();
  return query ? `?${query}` : "";
}

/** `log.list`'s input for the first page (newest first). */
export function logListInput(sessionId: string, filters: LogFilters) {
  return {
    sessionId,
    limit: LOG_PAGE_SIZE,
    ...(filters.agent && { agentType: filters.agent }),
    ...(filters.type && { logType: filters.type }),
    ...(filters.phase && { reasoningPhase: filters.phase }),
    ...(filters.q && { text: filters.q }),
  };
}
