/**
 * Property-based hostile input for every procedure of the app router (enumerated, so a new one is
 * covered without touching this file): each run takes the procedure's valid input and breaks one
 * field — a wrong type, a missing or an extra field, megabytes of text, deep nesting, NUL, a lone
 * surrogate, SQL, a negative or enormous number, an unknown enum value, a value JSON cannot carry.
 *
 * The answer must be a 4xx, never an internal error; a refusal writes no row of any table; bad
 * input is BAD_REQUEST with a message that starts with the field it names. Whether an input is
 * bad is decided independently of the call: by the procedure's own schema (the oracle), and, for
 * what no field may hold (NUL, lone surrogates, depth, non-JSON values, oversize text), always.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { fieldPath } from "@/server/domain/errors";
import type { Actor } from "@/server/domain/actors";
import { MAX_INPUT_DEPTH } from "@/server/domain/input-guard";
import { VALID_INPUTS, callPath, world } from "@/test/support/procedure-inputs";
import { ACTORS, type Fixture, callerFor, procedurePaths, refusal, tableCounts } from "@/test/support/api-helpers";
import { appRouter } from "./root";

/** Runs per procedure; about 85 procedures, so ~2,500 hostile calls in all. */
const RUNS = Number(process.env.PROOFGATE_FUZZ_RUNS ?? 30);

type Path = (string | number)[];
type Hostile = { category: Category; value: unknown };
type Category = "huge" | "nul" | "surrogate" | "deep" | "not_json" | "sql" | "number" | "enum" | "wrong_type";
/** Categories no field accepts, whatever its schema says (megabytes only where there is a schema: a procedure without input ignores it, and HTTP bodies are capped). */
const ALWAYS_REFUSED: ReadonlySet<Category> = new Set(["huge", "nul", "surrogate", "deep", "not_json"]);

const HUGE = "x".repeat(2_100_000);
function deep(levels: number, asObject: boolean): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = asObject ? { a: value } : [value];
  return value;
}
const DEEP = [deep(MAX_INPUT_DEPTH + 1, false), deep(5_000, true), deep(200_000, false)];

const hostileValue: fc.Arbitrary<Hostile> = fc.oneof(
  fc.constant<Hostile>({ category: "huge", value: HUGE }),
  fc.string({ maxLength: 20 }).map((s): Hostile => ({ category: "nul", value: `${s}\u0000${s}` })),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom("\uD800", "\uDFFF", "\uDBFF\u0041"))
    .map(([s, lone]): Hostile => ({ category: "surrogate", value: `${s}${lone}` })),
  fc.constantFrom(...DEEP).map((value): Hostile => ({ category: "deep", value })),
  fc
    .constantFrom<unknown>(10n, new Map([["a", 1]]), new Set([1]), /x/, () => 1, NaN, Infinity, -Infinity, new Date(Number.NaN), Symbol("s"))
    .map((value): Hostile => ({ category: "not_json", value })),
  fc
    .constantFrom("'; DROP TABLE sessions; --", "s1' OR '1'='1", '" OR ""="', "1; DELETE FROM events", "%", "_", "\\", "s1'--")
    .map((value): Hostile => ({ category: "sql", value })),
  fc
    .oneof(fc.integer({ min: -(2 ** 53), max: -1 }), fc.constantFrom(-1, 0, 0.5, -0.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e21, 1e308, -1e308, Number.MIN_VALUE))
    .map((value): Hostile => ({ category: "number", value })),
  fc.constantFrom("not_a_known_value", "PASSED ", "Pending", "COMPLETED", "").map((value): Hostile => ({ category: "enum", value })),
  fc
    .oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
      fc.string({ maxLength: 8 }),
    )
    .map((value): Hostile => ({ category: "wrong_type", value })),
);

type Mutation =
  { kind: "replace"; path: Path; hostile: Hostile } | { kind: "remove"; path: Path } | { kind: "extra"; path: Path; key: string; hostile: Hostile };

/** Every path into a value: the root, each key and index (arrays and objects), up to four levels. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = [[]]): Path[] {
  if (prefix.length >= 4 || value === null || typeof value !== "object") return out;
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    out.push(path);
    pathsOf(child, path, out);
  }
  return out;
}

function objectPaths(value: unknown): Path[] {
  return pathsOf(value).filter((p) => {
    const target = get(value, p);
    return target !== null && typeof target === "object" && !Array.isArray(target);
  });
}

function get(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

/** A structural copy of JSON-like input with the mutation applied (hostile values are not copied). */
function apply(valid: unknown, mutation: Mutation): unknown {
  const copy: unknown = valid === undefined ? undefined : structuredClone(valid);
  const { path } = mutation;
  if (mutation.kind === "extra") {
    const target = (path.length === 0 ? copy : get(copy, path)) as Record<string, unknown>;
    target[mutation.key] = mutation.hostile.value;
    return copy;
  }
  if (path.length === 0) return mutation.kind === "replace" ? mutation.hostile.value : undefined;
  const parent = get(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (mutation.kind === "remove") {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = mutation.hostile.value;
  return copy;
}

function mutations(valid: unknown): fc.Arbitrary<Mutation> {
  const paths = pathsOf(valid);
  const objects = objectPaths(valid);
  const options: fc.Arbitrary<Mutation>[] = [
    fc.record({ kind: fc.constant("replace" as const), path: fc.constantFrom(...paths), hostile: hostileValue }),
    fc.record({ kind: fc.constant("replace" as const), path: fc.constantFrom(...paths), hostile: hostileValue }),
  ];
  if (paths.length > 1) options.push(fc.record({ kind: fc.constant("remove" as const), path: fc.constantFrom(...paths.slice(1)) }));
  if (objects.length > 0) {
    options.push(
      fc.record({
        kind: fc.constant("extra" as const),
        path: fc.constantFrom(...objects),
        key: fc.constantFrom("extra", "__proto__x", "sessionId2", "role"),
        hostile: hostileValue,
      }),
    );
  }
  return fc.oneof(...options);
}

/** Who calls: every role that writes something, so the services behind the schemas are reached. */
const CALLERS: Actor[] = [ACTORS.admin, ACTORS.orchestrator, ACTORS.developer, ACTORS.verifier2, ACTORS.lead];

interface Parser {
  safeParseAsync(input: unknown): Promise<{ success: boolean }>;
}

function parserOf(path: string): Parser | null {
  const procedure = (appRouter._def.procedures as unknown as Record<string, { _def: { inputs: Parser[] } }>)[path]!;
  return procedure._def.inputs[0] ?? null;
}

/** The field a mutation touched, as the API names fields (`criteria[0].criterion`). */
function named(mutation: Mutation): string {
  return mutation.kind === "extra" ? fieldPath([...mutation.path, mutation.key]) : fieldPath(mutation.path);
}

const tally = { calls: 0, refused: 0, accepted: 0, byCategory: {} as Record<string, number> };
let f: Fixture;
beforeAll(async () => {
  f = await world();
}, 60_000);

const paths = Object.keys(procedurePaths());

it("has a valid input for every procedure", () => {
  expect(Object.keys(VALID_INPUTS).sort()).toEqual([...paths].sort());
});

// In order, also under --sequence.shuffle: the last test reads the tally of the ones before it.
describe("every procedure, given hostile input", { shuffle: false }, () => {
  it.each(paths)("%s answers 4xx (never 500), writes nothing when it refuses, and names the field of bad input", async (path) => {
    const valid = VALID_INPUTS[path];
    const parser = parserOf(path);
    await fc.assert(
      fc.asyncProperty(mutations(valid), fc.constantFrom(...CALLERS), async (mutation, actor) => {
        const input = apply(valid, mutation);
        const hostile = mutation.kind === "remove" ? undefined : mutation.hostile;
        // A procedure without an input ignores what it is sent (only the guard looks at it).
        const schemaRefuses = parser ? !(await parser.safeParseAsync(input)).success : false;
        const mustRefuse = schemaRefuses || (hostile !== undefined && ALWAYS_REFUSED.has(hostile.category) && (parser !== null || hostile.category !== "huge"));
        const before = tableCounts(f.db);
        tally.calls++;
        const category = hostile?.category ?? "missing";
        tally.byCategory[category] = (tally.byCategory[category] ?? 0) + 1;

        let result: unknown;
        let failed = false;
        const outcome = await refusalOrResult(callPath(callerFor(f.db, actor), path, input));
        if ("refusal" in outcome) failed = true;
        else result = outcome.result;

        if (!failed) {
          await closeIfStream(result);
          tally.accepted++;
          expect(mustRefuse, `accepted input the schema or the guard refuses at ${named(mutation)}`).toBe(false);
          return;
        }
        tally.refused++;
        const r = (outcome as { refusal: Awaited<ReturnType<typeof refusal>> }).refusal;
        expect(r.code, `${path} ${named(mutation)} (${category}): ${r.message}`).not.toBe("INTERNAL_SERVER_ERROR");
        expect(tableCounts(f.db), `${path} refused but wrote rows`).toEqual(before);
        // Roles are checked before the schema: a caller who may not call it at all learns only that.
        const roleRefusal = r.code === "FORBIDDEN" && /^role \w+ may not /.test(r.message);
        if (mustRefuse && !roleRefusal) {
          expect(r.code, `${path} ${named(mutation)} (${category}): ${r.message}`).toBe("BAD_REQUEST");
          // The message starts with a field: `criteria[0].evidence: must …`.
          expect(r.message).toMatch(/^(?:[A-Za-z_$][\w$-]*|\[(?:"(?:[^"\\]|\\.)*"|\d+)\])(?:\[(?:"(?:[^"\\]|\\.)*"|\d+)\]|\.[\w$-]+)*…?: \S/);
          if (hostile && ALWAYS_REFUSED.has(hostile.category) && mutation.kind !== "extra" && mutation.path.length > 0) {
            // The field or the one holding it (a JSON document's size is its own); a goal contract
            // is checked by the domain, which names fields within the contract.
            const names = [named(mutation), fieldPath(mutation.path.slice(1)), ...mutation.path.map((_, k) => fieldPath(mutation.path.slice(0, k + 1)))];
            // …and calls the whole contract `goalContract`.
            if (mutation.path[0] === "contract") names.push("goalContract:");
            expect(
              names.some((name) => r.message.includes(name)),
              `${path}: "${r.message}" should name ${named(mutation)}`,
            ).toBe(true);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("tried inputs in every category", () => {
    // Shown in the test output so the README's figures come from a run.
    console.info(
      `hostile-input: ${tally.calls} calls over ${paths.length} procedures; refused ${tally.refused}, accepted ${tally.accepted}; by category ${JSON.stringify(tally.byCategory)}`,
    );
    for (const category of ["huge", "nul", "surrogate", "deep", "not_json", "sql", "number", "enum", "wrong_type", "missing"]) {
      expect(tally.byCategory[category] ?? 0, category).toBeGreaterThan(0);
    }
  });
});

describe("values that used to reach the database layer and fail there as internal errors", () => {
  it("refuses a BigInt in a JSON field, and nesting too deep to serialize, naming the field", async () => {
    const before = tableCounts(f.db);
    const bigint = await refusal(callerFor(f.db, ACTORS.admin).session.create({ id: "b1", metadata: { a: 10n } } as never));
    expect([bigint.code, bigint.message, bigint.data.rule]).toEqual(["BAD_REQUEST", "metadata.a: must be JSON data (got a bigint)", "input.not_json"]);
    const tooDeep = await refusal(callerFor(f.db, ACTORS.admin).session.create({ id: "b2", flags: deep(20_000, true) } as never));
    expect([tooDeep.code, tooDeep.message, tooDeep.data.rule]).toEqual([
      "BAD_REQUEST",
      `flags.a.a.a…: must not nest more than ${MAX_INPUT_DEPTH} levels of arrays and objects`,
      "input.too_deep",
    ]);
    expect(tableCounts(f.db)).toEqual(before);
  });
});

async function refusalOrResult(call: Promise<unknown>): Promise<{ result: unknown } | { refusal: Awaited<ReturnType<typeof refusal>> }> {
  const settled = await call.then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (settled.ok) return { result: settled.result };
  return { refusal: await refusal(Promise.reject(settled.error)) };
}

/** A subscription's caller returns its stream: close it without reading. */
async function closeIfStream(result: unknown): Promise<void> {
  if (result !== null && typeof result === "object" && Symbol.asyncIterator in result) {
    await (result as AsyncIterable<unknown>)[Symbol.asyncIterator]().return?.(undefined);
  }
}
