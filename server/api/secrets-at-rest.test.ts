/**
 * Secrets written through any write procedure are stored redacted. For every mutation and every
 * text field of its input (plus the free-text fields a caller may add: notes, evidence, reasons,
 * outputs), a fresh copy of the world receives a text holding an OpenAI-style key, a GitHub
 * token, an AWS key id and a private-key block; if the call is accepted, no column of any table
 * (events included) may hold any of them afterwards.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { operatorActor } from "@/server/domain/actors";
import { callPath, copyDb, VALID_INPUTS, world } from "@/test/support/procedure-inputs";
import { type Fixture, PASSED, callerFor, columnsContaining, procedurePaths } from "@/test/support/api-helpers";

const SECRETS = {
  openai: `sk-proj-${"A1b2C3d4".repeat(4)}`,
  github: `ghp_${"x9Y8z7W6".repeat(5)}`,
  aws: "AKIAIOSFODNN7EXAMPLE",
  privateKey: "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu",
};
const TEXT = `leaked: ${SECRETS.openai} ${SECRETS.github} ${SECRETS.aws}\n-----BEGIN RSA PRIVATE KEY-----\n${SECRETS.privateKey}\n-----END RSA PRIVATE KEY-----`;

/** For labels and names (one line, at most 200 characters). */
const SHORT = `${SECRETS.openai} ${SECRETS.aws}`;

/** Optional free-text fields, added to the valid input so they are covered too. */
const EXTRA: Record<string, Record<string, unknown>> = {
  "session.create": { requirements: "r", metadata: { note: "n" } },
  "task.create": { description: "d" },
  "task.report": { description: "d" },
  "task.verify": { proofpack: { ...PASSED, notes: "n", checks: [{ name: "unit", passed: true, detail: "d" }] } },
  "task.block": { reason: "r" },
  "task.claim": { reason: "r" },
  "criteria.save": { criteria: [{ criterion: "new", actual: "a", evidence: "e" }] },
  "criteria.update": { actual: "a", evidence: "e" },
  "criteria.verify": { actual: "a", evidence: "e" },
  "attempt.start": { prompt: "p" },
  "attempt.finish": { output: "o", statusDetail: "s", diff: "d" },
  "attempt.trustScore": { notes: "n" },
  "log.decision": { data: { why: "w" } },
  "log.saveState": { data: { note: "n" } },
  "log.saveSkillOutput": { data: { note: "n" } },
};

type Path = (string | number)[];

function stringLeaves(value: unknown, prefix: Path = []): Path[] {
  if (typeof value === "string") return [prefix];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...prefix, Array.isArray(value) ? Number(k) : k]));
}

function withText(input: unknown, path: Path, text: string): unknown {
  const copy = structuredClone(input) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = text;
  return copy;
}

let base: Fixture;
beforeAll(async () => {
  base = await world();
}, 60_000);

const cases = Object.entries(procedurePaths())
  .filter(([p, type]) => type === "mutation" && !p.startsWith("admin.") && !p.startsWith("setup."))
  .flatMap(([procedure]) => {
    const input = { ...(VALID_INPUTS[procedure] as object), ...EXTRA[procedure] };
    return stringLeaves(input).map((path) => [procedure, path.join("."), input, path] as const);
  });

const tally = { accepted: 0, refused: 0 };

// The last test reads the tally the cases before it kept: the order is part of the test, never shuffled.
describe("a secret written through any write procedure", { shuffle: false }, () => {
  it.each(cases)("%s %s is stored redacted", async (procedure, _field, input, path) => {
    const db = copyDb(base.db);
    try {
      const caller = callerFor(db, operatorActor("developer_9"));
      const attempt = (text: string) =>
        callPath(caller, procedure, withText(input, path, text)).then(
          () => true,
          () => false,
        );
      // The full text first; a field that takes only one short line gets a line with two secrets.
      const accepted = (await attempt(TEXT)) || (await attempt(SHORT));
      if (!accepted) {
        // An identifier or an enum does not take free text at all: nothing was written to leak.
        tally.refused++;
        return;
      }
      tally.accepted++;
      for (const [kind, secret] of Object.entries(SECRETS)) expect(columnsContaining(db, secret), `${kind} stored in clear`).toEqual([]);
    } finally {
      db.$client.close();
    }
  });

  it("reached the free-text fields", () => {
    console.info(
      `secrets-at-rest: ${cases.length} text fields of ${new Set(cases.map((c) => c[0])).size} write procedures; ${tally.accepted} took the text, ${tally.refused} refused it`,
    );
    // Free text took it (and stored it redacted); identifiers, names and enums refused it.
    expect(tally.accepted).toBeGreaterThanOrEqual(40);
  });
});
