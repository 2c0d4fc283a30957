/**
 * Every procedure of the API on both engines (issue 21): the same world (test/support/
 * procedure-inputs.ts) is built on SQLite and on PostgreSQL, then each procedure is called with
 * its valid input, in the same order on both, as the admin. Each must answer alike: the same
 * refusal (code and rule), or a result of the same shape with the same values — dates, ids and
 * timings aside. A procedure whose services use SQL only SQLite understands fails here.
 */
// flake-risks time: daily series bucket writes by UTC day: both worlds are built again should midnight fall while they are built
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { TRPCError } from "@trpc/server";
import { type Fixture, procedurePaths } from "@/test/support/api-helpers";
import { PG_TEMPLATE, createTestDatabase } from "@/test/support/pg-cluster";
import { VALID_INPUTS, callPath, world } from "@/test/support/procedure-inputs";

const adminUrl = inject("pgAdminUrl");

/** Procedures not compared here: a subscription (a stream, tested by the live tests). */
const NOT_COMPARED = new Set(["events.stream"]);

type Outcome = { ok: true; value: unknown } | { ok: false; code: string; rule?: string; message: string };

async function outcomeOf(f: Fixture, path: string): Promise<Outcome> {
  try {
    return { ok: true, value: normalize(await callPath(f.as("admin"), path)) };
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    const rule = (error.cause as { rule?: string } | undefined)?.rule;
    return { ok: false, code: error.code, ...(rule && { rule }), message: error.message };
  }
}

/** Dates, ids, timings and secrets differ between two runs of the same calls; the rest must not. */
function normalize(value: unknown, key = ""): unknown {
  if (key === "timings") return "<timings>";
  if (value instanceof Date) return "<date>";
  if (Array.isArray(value)) return value.map((item) => normalize(item));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, normalize(v, k)]));
  }
  // Latencies measured between calls made in real time (the world is built twice, a few ms apart).
  if (typeof value === "number" && /(^id$|Id$|^timings$|Ms$|^ms$|^p\d+$|^mean$)/.test(key)) return "<number>";
  if (typeof value === "string" && /^(token|secret|signingSecret|prefix)$/.test(key)) return "<secret>";
  if (typeof value === "string") {
    // Instants written inside JSON text, and generated ids (people's are UUIDs).
    return value
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<date>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>");
  }
  return value;
}

describe.skipIf(!adminUrl)("every procedure answers alike on SQLite and PostgreSQL", () => {
  let sqlite: Fixture;
  let postgres: Fixture;
  let pgDb: Db;
  beforeAll(async () => {
    // PostgreSQL takes the instance key from the environment (server/auth/secret.ts): webhook secrets are sealed under it.
    vi.stubEnv("BETTER_AUTH_SECRET", "engines-test-key-engines-test-key-0123456789");
    // Daily series bucket writes by UTC day: two worlds built across midnight would differ by a day. Should a
    // midnight fall while they are built, they are built again, both, on the new day.
    const utcDay = () => Math.floor(Date.now() / 86_400_000);
    for (let attempt = 1; ; attempt++) {
      const day = utcDay();
      pgDb = await openLedger(await createTestDatabase(adminUrl!, undefined, { template: PG_TEMPLATE }), { migrate: false, poolSize: 4 });
      sqlite = await world();
      postgres = await world(pgDb);
      if (utcDay() === day || attempt === 2) break;
      await closeLedger(pgDb);
    }
  }, 120_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    if (pgDb) await closeLedger(pgDb);
  });

  const paths = Object.entries(procedurePaths())
    .filter(([path, type]) => type !== "subscription" && !NOT_COMPARED.has(path))
    .map(([path]) => path);

  it("has a valid input for every procedure compared", () => {
    expect(paths.filter((path) => !(path in VALID_INPUTS))).toEqual([]);
  });

  it.each(paths)("%s", async (path) => {
    const onSqlite = await outcomeOf(sqlite, path);
    const onPostgres = await outcomeOf(postgres, path);
    expect(onPostgres).toEqual(onSqlite);
  });
});
