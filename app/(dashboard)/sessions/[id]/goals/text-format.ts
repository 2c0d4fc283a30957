/** Text helpers shared by the goals and logs pages: stored text is shown as text, links only when safe. */

/** True for an absolute http(s) URL: the only kind of stored value the dashboard makes clickable. */
export function isWebLink(value: string): boolean {
  if (!/^https?:\/\//i.test(value.trim())) return false;
  try {
    const url = new URL(value.trim());
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** A JSON object or array indented for reading; any other text unchanged. */
export function prettyJson(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  const trimmed = value.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return value;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return value;
  }
}

/** Any value (an event payload, a metrics map) as readable text. */
export function showValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? prettyJson(value) : JSON.stringify(value, null, 2);
}

export interface Clipped {
  shown: string;
  /** Lines hidden while collapsed; 0 when the text fits. */
  hiddenLines: number;
  clipped: boolean;
}

/** The head of a long text: at most `lines` lines and `chars` characters. */
export function clip(text: string, lines: number, chars: number): Clipped {
  const all = text.split("\n");
  let shown = all.slice(0, lines).join("\n");
  if (shown.length > chars) shown = shown.slice(0, chars);
  const clipped = shown.length < text.length;
  const hiddenLines = clipped ? all.length - shown.split("\n").length : 0;
  return { shown, hiddenLines, clipped };
}

/** `2026-11-21 14:03:07 UTC`: log rows need the seconds. */
export function formatUtcSeconds(at: Date | number): string {
  return `${new Date(at).toISOString().replace("T", " ").slice(0, 19)} UTC`;
}
