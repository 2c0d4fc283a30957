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
  // Every request's input passes here (500-row log batches included), so a node carries its parent
  // and key, and the field's path is only put together for the one that is refused.
  const stack: Node[] = [{ value: input, parent: null, key: "", depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) return new ValidationError(nameOf(node), problem.rule, problem.message);
      continue;
    }
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return new ValidationError(nameOf(node), "input.not_finite", "must be a finite number");
      continue;
    }
    if (value === null || value === undefined || typeof value === "boolean") continue;
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) return new ValidationError(nameOf(node), "input.invalid_date", "must be a valid date");
      continue;
    }
    const array = Array.isArray(value);
    if (typeof value !== "object" || !(array || isPlainObject(value))) {
      return new ValidationError(nameOf(node), "input.not_json", `must be JSON data (got ${describe(value)})`);
    }
    if (node.depth >= MAX_INPUT_DEPTH)
      return new ValidationError(nameOf(node), "input.too_deep", `must not nest more than ${MAX_INPUT_DEPTH} levels of arrays and objects`);
    const depth = node.depth + 1;
    // Children pushed last to first, so the first bad one in the input's order is the one named.
    if (array) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: node, key: i, depth });
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      const keyProblem = textProblem(key);
      if (keyProblem) return new ValidationError(nameOf(node), keyProblem.rule, `keys ${keyProblem.message}`);
    }
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]!], parent: node, key: keys[i]!, depth });
  }
  return null;
}

interface Node {
  value: unknown;
  parent: Node | null;
  key: string | number;
  depth: number;
}

function textProblem(text: string): { rule: string; message: string } | null {
  if (text.includes("\u0000")) return { rule: "input.nul_character", message: "must not contain NUL characters" };
  // A lone surrogate half is what makes a string not well formed.
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed())
    return { rule: "input.invalid_unicode", message: "must be valid Unicode (no lone surrogate halves)" };
  return null;
}

/** `metadata.a.b`, cut after four steps (a depth refusal would otherwise name 64); `input[0]` at the root. */
function nameOf(node: Node): string {
  const path: PropertyKey[] = [];
  for (let at: Node | null = node; at?.parent; at = at.parent) path.unshift(at.key);
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
