/**
 * BAZINGA's context-engineering rules (bazinga_db.py v19), kept exactly so a pattern saved here
 * has the hash BAZINGA gives it: the error signature and its hash, the confidence steps, the TTL,
 * strategy ids and the phases a strategy is extracted from. Pure: no I/O.
 */

export interface ErrorSignature {
  error_type: string;
  message_pattern: string;
  context_hints: string[];
  stack_pattern: string[];
}

/** Paths, line numbers and short quoted values removed, so the same error in another file matches. */
export function errorSignature(
  errorType: string,
  errorMessage: string,
  contextHints: readonly string[] = [],
  stackPattern: readonly string[] = [],
): ErrorSignature {
  const pattern = errorMessage
    .replace(/\/[^\s]+\//g, ".../")
    .replace(/[A-Z]:\\[^\s]+\\/g, "...\\")
    .replace(/line \d+/g, "line N")
    .replace(/'[^']{1,50}'/g, "'...'")
    .replace(/"[^"]{1,50}"/g, '"..."');
  return {
    error_type: errorType.trim() || "Unknown",
    message_pattern: pattern.trim().slice(0, 500),
    context_hints: [...contextHints],
    stack_pattern: [...stackPattern],
  };
}

/** Hex SHA-256 of a UTF-8 text. The domain does no I/O and loads no node module: the service hands it in. */
export type Sha256Hex = (text: string) => string;

/** SHA-256 of `type:pattern:sorted hints`, as bazinga_db.py's `_generate_pattern_hash`. */
export function patternHash(sha256: Sha256Hex, signature: Pick<ErrorSignature, "error_type" | "message_pattern" | "context_hints">): string {
  const hints = [...signature.context_hints].sort().join(",");
  return sha256(`${signature.error_type}:${signature.message_pattern}:${hints}`);
}

/** JSON as Python's json.dumps writes it (", " and ": " separators, non-ASCII escaped), so signature_json reads as BAZINGA's. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`)
      .join(", ")}}`;
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export const INITIAL_CONFIDENCE = 0.5;
export const DEFAULT_TTL_DAYS = 90;
/** Below this a pattern is kept but not injected into prompts. */
export const INJECTABLE_CONFIDENCE = 0.3;

/** +0.1 when a pattern's solution helped (at most 1), −0.2 for a false match (at least 0.1). */
export function nextConfidence(current: number, helped: boolean): number {
  const next = helped ? Math.min(1, current + 0.1) : Math.max(0.1, current - 0.2);
  return Math.round(next * 1e10) / 1e10;
}

/** Whether a pattern last seen at `lastSeen` has outlived its TTL on `now`'s date (BAZINGA compares dates). */
export function isExpired(lastSeen: Date, ttlDays: number, now: Date): boolean {
  const expires = new Date(lastSeen.getTime() + ttlDays * 86_400_000);
  return expires.toISOString().slice(0, 10) < now.toISOString().slice(0, 10);
}

export const STRATEGY_TOPICS = ["implementation", "architecture", "methodology", "general"] as const;
export type StrategyTopic = (typeof STRATEGY_TOPICS)[number];
export const MAX_INSIGHT_LENGTH = 500;

/** An unknown topic is `general`, as bazinga_db.py normalises it. */
export function strategyTopic(topic: string): StrategyTopic {
  return (STRATEGY_TOPICS as readonly string[]).includes(topic) ? (topic as StrategyTopic) : "general";
}

/** `<project>_<topic>_<first 16 hex of sha256(insight)>`: the same insight saved twice is one strategy. */
export function strategyId(sha256: Sha256Hex, projectId: string, topic: string, insight: string): string {
  return `${projectId}_${topic}_${sha256(insight).slice(0, 16)}`;
}

/** The reasoning phases a strategy is extracted from, and the topic each gives. */
export const STRATEGY_PHASES: Readonly<Record<string, StrategyTopic>> = { completion: "implementation", decisions: "architecture", approach: "methodology" };

/** Deterministic id of a consumption record: the same read recorded twice is one row. */
export function consumptionScopeId(sha256: Sha256Hex, sessionId: string, groupId: string, agentType: string, iteration: number, packageId: number): string {
  return sha256(`${sessionId}:${groupId}:${agentType}:${iteration}:${packageId}`).slice(0, 32);
}
