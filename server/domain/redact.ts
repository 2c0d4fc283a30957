/**
 * Secret redaction for log and reasoning text before it is stored: agents paste command output,
 * environment dumps and HTTP traces, and the ledger must not become a place where keys leak.
 * Each secret becomes `[REDACTED:<kind>]`; for `name=value` forms the name is kept so the log
 * still says what was there.
 */

export interface RedactionResult {
  text: string;
  redacted: boolean;
  /** Kinds of secret found, sorted and unique, e.g. `["github_token", "password"]`. */
  kinds: string[];
}

interface Rule {
  kind: string | ((match: string, ...groups: string[]) => string);
  pattern: RegExp;
  /** Builds the replacement from the marker and the match's groups; the whole match by default. */
  replace?: (marker: string, ...groups: string[]) => string;
}

const marker = (kind: string) => `[REDACTED:${kind}]`;

// Names whose value is a secret in `name=value`, `name: value` and JSON forms. A key may carry a
// prefix (`DB_`, `github_`, `client_`) so `DB_PASSWORD=` and `client_secret:` are caught, but the
// name must end the key: `max_tokens=`, `token_count=` and "the token bucket" are left alone.
const SECRET_KEY = /^(?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|password|passwd|secret|token)$/i;

function kindOfName(name: string): string {
  const lower = name.toLowerCase();
  if (/pass(?:word|wd)$/.test(lower)) return "password";
  if (/api[_-]?key$/.test(lower)) return "api_key";
  if (/secret$/.test(lower)) return "secret";
  return "token";
}

// Order matters: whole private-key blocks first so no other rule sees their body, then recognizable
// token formats, and the generic `name=value` rule last so `api_key=sk-…` is labelled by its format.
const RULES: readonly Rule[] = [
  {
    kind: "private_key",
    // A block cut off before its END line (a truncated log) still leaks the key, so it runs to the end.
    pattern: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END \1PRIVATE KEY\2-----|[\s\S]*$)/g,
  },
  { kind: "anthropic_key", pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: "openai_key", pattern: /(?<![A-Za-z0-9_-])sk-(?!ant-)[A-Za-z0-9_-]{16,}/g },
  { kind: "github_token", pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { kind: "aws_access_key_id", pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  {
    kind: "aws_secret_access_key",
    pattern: /(aws_secret_access_key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{16,})/gi,
    replace: (redaction, prefix = "") => `${prefix}${redaction}`,
  },
  {
    kind: "bearer_token",
    pattern: /(?<![A-Za-z0-9])(Bearer\s+)([A-Za-z0-9._~+/=-]{16,})/gi,
    replace: (redaction, prefix = "") => `${prefix}${redaction}`,
  },
  {
    // The name's prefix is not matched: a secret name preceded by anything but a letter or digit
    // (`DB_PASSWORD`, `--token`, ` secret`) is exactly what `(?:[A-Za-z0-9]+[_-])*name` allowed, and
    // the text before the value is kept as it is. Matching the prefix made the rule quadratic: on
    // `a_a_a_…` every letter after a `_` was a new start that rescanned the rest of the run.
    // Quoted values may hold spaces; unquoted ones end at whitespace or a separator.
    kind: (_match, _prefix, name = "") => kindOfName(name),
    pattern:
      /(?<![A-Za-z0-9])(["']?(api[_-]?key|password|passwd|secret|token)["']?\s*[:=]\s*)(?:"(?!\[REDACTED:)([^"\n]+)"|'(?!\[REDACTED:)([^'\n]+)'|(?!\[REDACTED:)([^\s"',;&}]+))/gi,
    replace: (redaction, prefix = "", _name, doubleQuoted, singleQuoted) => {
      if (doubleQuoted !== undefined) return `${prefix}"${redaction}"`;
      if (singleQuoted !== undefined) return `${prefix}'${redaction}'`;
      return `${prefix}${redaction}`;
    },
  },
];

/**
 * Text no rule can match lacks all of these: each rule's match holds one of them (the formats'
 * prefixes, the `BEGIN` line, `Bearer `, and the secret names `name=value` ends with; without case,
 * so it matches a superset). Most text an agent logs holds none, and one test of this is ~8 times
 * cheaper than running the rules; redact.test.ts checks it never lets through what the rules catch.
 */
export const MAY_HOLD_SECRET = /-----BEGIN |sk-|gh[pousr]_|github_pat_|AKIA|ASIA|bearer\s|api[_-]?key|passw(?:or)?d|secret|token/i;

/**
 * Replaces secrets in `text` with `[REDACTED:<kind>]`. Idempotent: already-redacted text is returned
 * unchanged with `redacted: false`.
 */
export function redactSecrets(text: string): RedactionResult {
  if (!MAY_HOLD_SECRET.test(text)) return { text, redacted: false, kinds: [] };
  return applyRules(text);
}

/** `redactSecrets` without the quick check: every rule, on any text. */
export function applyRules(text: string): RedactionResult {
  const kinds = new Set<string>();
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      // After the capture groups, replace() passes the offset (the first number) and the input.
      const groups = rest.slice(
        0,
        rest.findIndex((value) => typeof value === "number"),
      ) as string[];
      const kind = typeof rule.kind === "function" ? rule.kind(match, ...groups) : rule.kind;
      kinds.add(kind);
      return rule.replace ? rule.replace(marker(kind), ...groups) : marker(kind);
    });
  }
  return { text: out, redacted: kinds.size > 0, kinds: [...kinds].sort() };
}

/**
 * Redacts every string leaf of a JSON value, and the string value of any key named like a secret
 * (`password`, `api_key`, `client_secret`, `GITHUB_TOKEN`…) whatever it looks like. Keys and
 * non-string leaves are kept; the input is not modified.
 */
export function redactJson<T>(value: T): { value: T; redacted: boolean; kinds: string[] } {
  const kinds = new Set<string>();
  const walk = (node: unknown, key: string | null): unknown => {
    if (typeof node === "string") {
      if (key !== null && SECRET_KEY.test(key) && node !== "" && !/^\[REDACTED:[a-z_]+\]$/.test(node)) {
        const kind = kindOfName(key);
        kinds.add(kind);
        return marker(kind);
      }
      const result = redactSecrets(node);
      result.kinds.forEach((kind) => kinds.add(kind));
      return result.text;
    }
    if (Array.isArray(node)) return node.map((item) => walk(item, null));
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([childKey, child]) => [childKey, walk(child, childKey)]));
    }
    return node;
  };
  const redactedValue = walk(value, null) as T;
  return { value: redactedValue, redacted: kinds.size > 0, kinds: [...kinds].sort() };
}
