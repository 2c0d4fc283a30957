/**
 * CSV as RFC 4180 writes it: CRLF between records; a field holding a comma, a double quote, CR or
 * LF is quoted, its quotes doubled. Criterion texts and rejection reasons are written by agents, so
 * a text field that a spreadsheet would run as a formula (starting with = + - @, tab or CR) is
 * prefixed with an apostrophe and read as the text it is. Numbers are written as numbers.
 */
export type CsvValue = string | number | null;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: CsvValue): string {
  if (value === null) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header record and one record per row. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((record) => record.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** A file name from free text: lower case, runs of anything else than letters and digits as one dash. */
export function csvFileName(...parts: (string | null | undefined)[]): string {
  const slug = parts
    .filter((part): part is string => Boolean(part))
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, ""); // the runs are single dashes by now
  return `${slug || "figure"}.csv`;
}
