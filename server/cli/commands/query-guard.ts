/**
 * The function allow-list of `proofgate query` on PostgreSQL. A `READ ONLY` transaction refuses every
 * write to a table, but not a function with a side effect (`pg_terminate_backend`, `pg_advisory_lock`,
 * `set_config`, `query_to_xml` running SQL of its own, `dblink`, `lo_*`…), and PostgreSQL has no
 * parse-only API. So the statement is scanned the way PostgreSQL's lexer reads it (strings, quoted
 * identifiers, dollar quotes, nested comments) and every `name(` must be a SQL keyword, a type or
 * alias column list, a CTE's name, or a function of the list below: anything else is refused before
 * the statement is sent.
 */
import { UsageError } from "../errors";

/** Pure functions and aggregates a read may call (PostgreSQL's, and SQLite's of migration 0004). */
const FUNCTIONS = new Set(
  [
    // SQLite's, from the schema proofgate_sqlite
    "json_extract group_concat ifnull",
    // aggregates and window functions
    "count sum avg min max string_agg array_agg bool_and bool_or every json_agg jsonb_agg json_object_agg jsonb_object_agg",
    "stddev stddev_pop stddev_samp variance var_pop var_samp percentile_cont percentile_disc mode",
    "row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value",
    // text
    "length char_length character_length octet_length lower upper initcap substr strpos replace concat concat_ws left right",
    "lpad rpad ltrim rtrim btrim split_part starts_with reverse repeat format to_char to_number md5",
    "regexp_replace regexp_match regexp_matches regexp_like regexp_count regexp_substr regexp_split_to_array regexp_split_to_table",
    // numbers
    "abs round ceil ceiling floor trunc mod power sqrt sign div exp ln log log10 width_bucket",
    // time
    "now to_timestamp to_date date_trunc date_part age make_interval make_date make_timestamp make_timestamptz justify_interval",
    // JSON and arrays
    "json_typeof jsonb_typeof json_array_length jsonb_array_length json_each jsonb_each json_each_text jsonb_each_text",
    "json_array_elements jsonb_array_elements json_array_elements_text jsonb_array_elements_text json_object_keys jsonb_object_keys",
    "json_extract_path json_extract_path_text jsonb_extract_path jsonb_extract_path_text to_json to_jsonb row_to_json",
    "json_build_object jsonb_build_object json_build_array jsonb_build_array jsonb_pretty jsonb_strip_nulls",
    "array_length array_to_string string_to_array cardinality unnest array_position generate_series pg_typeof",
  ]
    .join(" ")
    .split(" "),
);

/**
 * Words that stand before `(` without calling a function (`IN (`, `OVER (`, `CAST(`, `COALESCE(`…):
 * PostgreSQL's reserved words and the ones its grammar reads itself, none of which names a function.
 */
const KEYWORDS = new Set(
  [
    "select from where and or not in exists any all some on using join lateral values over filter group by having union",
    "intersect except as when then else case is like ilike similar between distinct limit offset materialized cast coalesce",
    "nullif greatest least row array extract position substring trim overlay window grouping cube rollup sets",
    "current_timestamp localtimestamp current_time localtime",
  ]
    .join(" ")
    .split(" "),
);

/** Where a schema-qualified call may point: the built-ins and SQLite's. */
const SCHEMAS = new Set(["pg_catalog", "proofgate_sqlite"]);

type Token = { kind: "word"; text: string; quoted: boolean } | { kind: "punct"; text: string } | { kind: "literal" };

/** PostgreSQL's whitespace: not JavaScript's \s, which takes U+00A0 and other letters PostgreSQL reads as part of a name. */
const WHITESPACE = /[ \t\n\r\f\v]/;
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** PostgreSQL's tokens, as far as a call needs them: words, `(`, `)`, `.`, `,`, `;`, `::`; strings, numbers and operators as literals. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const refuse = (why: string): never => {
    throw new UsageError(`sql: ${why}`);
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (WHITESPACE.test(c)) i += 1;
    else if (c === "-" && next === "-") {
      // PostgreSQL ends a -- comment at a carriage return too.
      const end = sql.slice(i).search(/[\n\r]/);
      i = end < 0 ? sql.length : i + end + 1;
    } else if (c === "/" && next === "*") {
      // PostgreSQL's block comments nest.
      let depth = 0;
      do {
        const step = sql.startsWith("/*", i) ? 1 : sql.startsWith("*/", i) ? -1 : 0;
        depth += step;
        i += step === 0 ? 1 : 2;
      } while (depth > 0 && i < sql.length);
      if (depth > 0) refuse("unterminated /* comment");
    } else if (c === "'") {
      i = skipString(sql, i, false, refuse);
      tokens.push({ kind: "literal" });
    } else if ((c === "e" || c === "E") && next === "'") {
      i = skipString(sql, i + 1, true, refuse);
      tokens.push({ kind: "literal" });
    } else if ((c === "u" || c === "U") && next === "&" && sql[i + 2] === '"') {
      refuse('U&"…" identifiers are not allowed');
    } else if (c === '"') {
      let text = "";
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) refuse("unterminated quoted identifier");
        if (sql[j] === '"' && sql[j + 1] !== '"') break;
        text += sql[j];
        j += sql[j] === '"' ? 2 : 1;
      }
      tokens.push({ kind: "word", text, quoted: true });
      i = j + 1;
    } else if (c === "$") {
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        if (end < 0) refuse("unterminated dollar-quoted string");
        i = end + tag[0].length;
      } else i += /^\$\d*/.exec(sql.slice(i))![0].length;
      tokens.push({ kind: "literal" });
    } else if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < sql.length && IDENT_PART.test(sql[j]!)) j += 1;
      // PostgreSQL folds ASCII letters only (JavaScript would fold the Kelvin sign to k).
      tokens.push({ kind: "word", text: sql.slice(i, j).replace(/[A-Z]+/g, (upper) => upper.toLowerCase()), quoted: false });
      i = j;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(next ?? ""))) {
      i += /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(sql.slice(i))![0].length;
      tokens.push({ kind: "literal" });
    } else if (c === ":" && next === ":") {
      tokens.push({ kind: "punct", text: "::" });
      i += 2;
    } else if ("().,;[]".includes(c)) {
      tokens.push({ kind: "punct", text: c });
      i += 1;
    } else {
      tokens.push({ kind: "literal" });
      i += 1;
    }
  }
  return tokens;
}

/** A string from its opening quote: `''` doubles a quote; in an E'…' string a backslash escapes the next character. */
function skipString(sql: string, start: number, backslashes: boolean, refuse: (why: string) => never): number {
  let j = start + 1;
  for (;;) {
    if (j >= sql.length) refuse("unterminated string");
    const c = sql[j];
    if (backslashes && c === "\\") j += 2;
    else if (c === "'") {
      if (sql[j + 1] === "'") j += 2;
      else return j + 1;
    } else j += 1;
  }
}

const isPunct = (token: Token | undefined, text: string): boolean => token?.kind === "punct" && token.text === text;
const isKeyword = (token: Token | undefined, text: string): boolean => token?.kind === "word" && !token.quoted && token.text === text;

/** The index of the `)` that closes the `(` at `open`, or -1. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isPunct(tokens[i], "(")) depth += 1;
    else if (isPunct(tokens[i], ")") && --depth === 0) return i;
  }
  return -1;
}

/** `name (cols) AS [NOT] [MATERIALIZED] (SELECT|WITH|VALUES|TABLE|(`: a CTE with a column list, not a call. */
function isCteName(tokens: Token[], open: number): boolean {
  let i = closing(tokens, open) + 1;
  if (i === 0 || !isKeyword(tokens[i], "as")) return false;
  i += 1;
  if (isKeyword(tokens[i], "not")) i += 1;
  if (isKeyword(tokens[i], "materialized")) i += 1;
  if (!isPunct(tokens[i], "(")) return false;
  const first = tokens[i + 1];
  return isPunct(first, "(") || ["select", "with", "values", "table"].some((word) => isKeyword(first, word));
}

/**
 * Refuse, before anything is sent, a statement that is more than one statement or that calls a
 * function outside the allow-list (schema-qualified calls only into pg_catalog or proofgate_sqlite).
 */
export function assertAllowedCalls(sql: string): void {
  const tokens = tokenize(sql);
  const semicolon = tokens.findIndex((token) => isPunct(token, ";"));
  if (semicolon >= 0 && semicolon < tokens.length - 1) throw new UsageError("sql: only a single read-only SELECT is allowed");
  for (let open = 1; open < tokens.length; open++) {
    if (!isPunct(tokens[open], "(") || tokens[open - 1]?.kind !== "word") continue;
    // The called name, with its qualifiers: a.b.c(
    let start = open - 1;
    while (start >= 2 && isPunct(tokens[start - 1], ".") && tokens[start - 2]?.kind === "word") start -= 2;
    const parts = tokens.slice(start, open).filter((token) => token.kind === "word") as { text: string; quoted: boolean }[];
    const before = tokens[start - 1];
    // `AS x(a, b)` names an alias's columns, `AS numeric(10, 2)` and `::numeric(10, 2)` a type.
    if (isKeyword(before, "as") || isPunct(before, "::")) continue;
    const name = parts[parts.length - 1]!;
    if (parts.length === 1 && !name.quoted && KEYWORDS.has(name.text)) continue;
    if (parts.length === 1 && isCteName(tokens, open)) continue;
    const schemas = parts.slice(0, -1);
    const allowed = FUNCTIONS.has(name.text) && schemas.every((schema) => SCHEMAS.has(schema.text)) && schemas.length <= 1;
    if (!allowed) {
      const shown = parts.map((part) => part.text).join(".");
      throw new UsageError(`sql: ${shown}() is not allowed: on PostgreSQL, query calls only pure functions (see docs/postgresql.md)`);
    }
  }
}
