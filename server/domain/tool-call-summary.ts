/**
 * What the ledger keeps of a runtime's tool call (a Claude Code PostToolUse): the tool's name and a
 * redacted, size-capped summary of its input and outcome. A Write's whole file or a Bash command's
 * megabytes of output are not history; the secrets in them must not become history either.
 */
import { redactJson, redactSecrets } from "./redact";

/** Characters kept of the input, and of the outcome, each. */
export const MAX_SUMMARY_CHARS = 2048;
/** Characters of one string read before redaction: well past the cap, so a cut never splits what is kept. */
const MAX_READ_CHARS = 4 * MAX_SUMMARY_CHARS;
const MAX_DEPTH = 6;
const MAX_ENTRIES = 50;

export interface ToolCallSummary {
  /** One line for the Logs tab, e.g. `Bash: npm test`. */
  headline: string;
  input: string;
  outcome: string | null;
  /** A secret was replaced somewhere in what is kept. */
  redacted: boolean;
}

export interface ToolCallReport {
  tool: string;
  input: unknown;
  /** PostToolUse's `tool_response`; absent for a failure. */
  response?: unknown;
  /** PostToolUseFailure's `error`. */
  error?: string;
  interrupted?: boolean;
}

/** The tool's main argument, which tells a reader what the call did (the command, the file, the pattern). */
const HEADLINE_FIELDS = ["command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description", "prompt"] as const;

export function summarizeToolCall(call: ToolCallReport): ToolCallSummary {
  const input = summarize(call.input);
  const failed = call.error !== undefined || call.interrupted === true;
  const outcome = failed
    ? summarize(`${call.interrupted ? "interrupted" : "failed"}${call.error ? `: ${call.error}` : ""}`)
    : call.response === undefined
      ? null
      : summarize(call.response);
  const main = headlineOf(call.input);
  const headline = redactSecrets(cap(`${call.tool}${failed ? " (failed)" : ""}${main ? `: ${main.replace(/\s+/g, " ").trim()}` : ""}`, 200));
  return {
    headline: headline.text,
    input: input.text,
    outcome: outcome?.text ?? null,
    redacted: input.redacted || (outcome?.redacted ?? false) || headline.redacted,
  };
}

function headlineOf(input: unknown): string | null {
  if (typeof input === "string") return input.slice(0, MAX_READ_CHARS);
  if (input === null || typeof input !== "object") return null;
  for (const field of HEADLINE_FIELDS) {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value === "string" && value.trim() !== "") return value.slice(0, MAX_READ_CHARS);
  }
  return null;
}

/** Redacted JSON (or text) of a value, at most MAX_SUMMARY_CHARS. */
export function summarize(value: unknown): { text: string; redacted: boolean } {
  const bounded = bound(value, 0);
  if (typeof bounded === "string") {
    const result = redactSecrets(bounded);
    return { text: cap(result.text, MAX_SUMMARY_CHARS), redacted: result.redacted };
  }
  const result = redactJson(bounded);
  return { text: cap(JSON.stringify(result.value) ?? "null", MAX_SUMMARY_CHARS), redacted: result.redacted };
}

/** The value with long strings, deep nesting and long lists cut, so redaction reads a bounded amount. */
function bound(value: unknown, depth: number): unknown {
  if (typeof value === "string") return value.length > MAX_READ_CHARS ? value.slice(0, MAX_READ_CHARS) : value;
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) return value.slice(0, MAX_ENTRIES).map((item) => bound(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, MAX_ENTRIES)
      .map(([key, child]) => [key, bound(child, depth + 1)]),
  );
}

const CUT = "… [cut]";

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - CUT.length)}${CUT}`;
}
