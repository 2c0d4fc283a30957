/**
 * The guard every procedure input passes first (server/api/hostile-input.test.ts fuzzes it through
 * every procedure): which field it names, and that good input of any shape passes.
 */
import { describe, expect, it } from "vitest";
import { MAX_INPUT_DEPTH, hostileInputError } from "./input-guard";

const refusal = (input: unknown) => {
  const error = hostileInputError(input);
  return error && { field: error.field, rule: error.rule };
};

describe("hostileInputError", () => {
  it("passes JSON data of any shape, dates, well-formed text with astral characters, and nulls", () => {
    expect(
      hostileInputError({
        sessionId: "s1",
        rows: [{ content: "ok 🚀 \uD83D\uDE80", n: 1, ok: true, at: new Date(0), none: null }],
        meta: { a: [1, [2, [3]]] },
      }),
    ).toBeNull();
    expect(hostileInputError(undefined)).toBeNull();
  });

  it("names the first bad item in the input's order, with its whole path", () => {
    const rows = [{ content: "fine" }, { content: "bad\u0000one" }, { content: "fine" }, { content: "lone \uD800" }];
    expect(refusal({ sessionId: "s1", rows })).toEqual({ field: "rows[1].content", rule: "input.nul_character" });
    expect(refusal({ a: "\uDFFF", b: "x\u0000" })).toEqual({ field: "a", rule: "input.invalid_unicode" });
    expect(refusal({ a: { b: [0, { c: Number.NaN }] } })).toEqual({ field: "a.b[1].c", rule: "input.not_finite" });
    expect(refusal(["ok", new Map()])).toEqual({ field: "input[1]", rule: "input.not_json" });
    expect(refusal({ at: new Date(Number.NaN) })).toEqual({ field: "at", rule: "input.invalid_date" });
  });

  it("refuses a bad key by the object that holds it", () => {
    expect(refusal({ metadata: { ok: 1, ["k\u0000"]: 2 } })).toEqual({ field: "metadata", rule: "input.nul_character" });
  });

  it(`accepts ${MAX_INPUT_DEPTH} levels of nesting and refuses one more, naming four steps of the path`, () => {
    const nest = (levels: number) => {
      let value: unknown = "bottom";
      for (let i = 0; i < levels; i++) value = { a: value };
      return value;
    };
    expect(hostileInputError(nest(MAX_INPUT_DEPTH))).toBeNull();
    expect(refusal(nest(MAX_INPUT_DEPTH + 1))).toEqual({ field: "a.a.a.a…", rule: "input.too_deep" });
  });
});
