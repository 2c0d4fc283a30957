import { ValidationError, fieldPath } from "@/server/domain/errors";

/** Deepest nesting of arrays and objects accepted in one input (a real proofpack or contract is under 10). */
export const MAX_INPUT_DEPTH = 64;

/**
 * Checks every value of a raw procedure input before its schema sees it, for what no field may
 * hold: nesting deeper than MAX_INPUT_DEPTH (recursive serializers would overflow the stack), text
 * that is not valid Unicode (a lone surrogate cannot be stored as UTF-8 and would be silently
 * replaced), NUL characters (C tools and SQLite's text functions stop at them), and values JSON
 * cannot carry (superjson can send a BigInt, a Map, a RegExp…). Dates pass: some inputs take them.
 * Iterative, so a hostile depth cannot overflow the stack here either. Returns the first problem
 * as a ValidationError naming the field, or null.
 */
export function hostileInputError(input: unknown): ValidationError | null {
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    const field = () => nameOf(path);
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) return new ValidationError(field(), problem.rule, problem.message);
      continue;
    }
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return new ValidationError(field(), "input.not_finite", "must be a finite number");
      continue;
    }
    if (value === null || value === undefined || typeof value === "boolean") continue;
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) return new ValidationError(field(), "input.invalid_date", "must be a valid date");
      continue;
    }
    if (typeof value !== "object" || !(Array.isArray(value) || isPlainObject(value))) {
      return new ValidationError(field(), "input.not_json", `must be JSON data (got ${describe(value)})`);
    }
    if (path.length >= MAX_INPUT_DEPTH) return new ValidationError(field(), "input.too_deep", `must not nest more than ${MAX_INPUT_DEPTH} levels of arrays and objects`);
    for (const [key, child] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      if (keyProblem) return new ValidationError(field(), keyProblem.rule, `keys ${keyProblem.message}`);
      stack.push({ value: child, path: [...path, Array.isArray(value) ? Number(key) : key] });
    }
  }
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): { rule: string; message: string } | null {
  if (text.includes("\u0000")) return { rule: "input.nul_character", message: "must not contain NUL characters" };
  if (LONE_SURROGATE.test(text)) return { rule: "input.invalid_unicode", message: "must be valid Unicode (no lone surrogate halves)" };
  return null;
}

/** `metadata.a.b`, cut after four steps (a depth refusal would otherwise name 64); `input[0]` at the root. */
function nameOf(path: readonly PropertyKey[]): string {
  const name = fieldPath(path.slice(0, 4)) + (path.length > 4 ? "…" : "");
  return name.startsWith("[") ? `input${name}` : name;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (typeof value !== "object" || value === null) return `a ${typeof value}`;
  return `a ${(value as object).constructor?.name ?? "non-plain object"}`;
}
