/**
 * Reading other tools' values: their timestamps are SQLite's `CURRENT_TIMESTAMP` text (UTC,
 * `2025-01-12 14:30:22`) or Python's `isoformat()` (`2025-01-12T14:30:22.704139`), their JSON is
 * text. Everything here is lenient and says what it could not read instead of throwing.
 */

const SQL_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** A source timestamp as a UTC instant; a time without an offset is taken as UTC (what SQLite writes). */
export function parseTime(value: unknown): Date | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number" && Number.isFinite(value)) {
    // Epoch seconds or milliseconds.
    return new Date(value > 1e11 ? value : value * 1000);
  }
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return new Date(`${text}T00:00:00Z`);
  const match = SQL_TIME.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s = "00", fraction = "", zone] = match;
  const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
  const offset = !zone || zone.toUpperCase() === "Z" ? "Z" : zone.includes(":") ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${String(ms).padStart(3, "0")}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The first readable time among candidates, else the fallback. */
export function firstTime(fallback: Date, ...values: unknown[]): Date {
  for (const value of values) {
    const time = parseTime(value);
    if (time) return time;
  }
  return fallback;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON text as a value; `undefined` when it is not JSON. Some tools store JSON encoded twice: that is unwrapped. */
export function parseJson(text: unknown): Json | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const value = JSON.parse(text) as Json;
    if (typeof value === "string") {
      const inner = value.trim();
      if (inner.startsWith("{") || inner.startsWith("[")) {
        try {
          return JSON.parse(inner) as Json;
        } catch {
          return value;
        }
      }
    }
    return value;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, Json> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A string column value, trimmed; null when empty or absent. */
export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value).trim();
  return s.length > 0 ? s : null;
}

/** A label cut to `max` characters (Proofgate's labels are at most 200). */
export function label(value: unknown, max = 200): string | null {
  const s = text(value);
  return s === null ? null : s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** An integer column value, or null. */
export function int(value: unknown): number | null {
  if (value === null || value === undefined || value === "") return null;
  const n = typeof value === "number" ? value : Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/** A git commit id as Proofgate accepts it (7 to 64 hex digits), or null. */
export function commitSha(value: unknown): string | null {
  const s = text(value);
  return s !== null && /^[0-9a-fA-F]{7,64}$/.test(s) ? s : null;
}

/** The message of a refusal, for a skip reason. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
