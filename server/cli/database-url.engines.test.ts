/**
 * The command line on a PostgreSQL database (`--database-url`, or PROOFGATE_DATABASE_URL): it
 * migrates it, runs BAZINGA's task flow in local mode with the same rules and refusals as on a
 * SQLite file, and fills an empty one with demo data (generated into a temporary file, then copied
 * in). Each test gets a fresh database on the run's throwaway cluster (pg project).
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { closeLedger, openLedger } from "@/db/client";
import { findPgMigrationsFolder } from "@/db/pg/migrate";
import { rawAll } from "@/db/query";
import { cli, removeWorkspaces } from "@/test/support/cli-harness";
import { pgAdminUrl } from "@/test/support/engines";
import { createTestDatabase } from "@/test/support/pg-cluster";

afterAll(removeWorkspaces);

const CLEAN = { PROOFGATE_DB: undefined, PROOFGATE_DATABASE_URL: undefined, PROOFGATE_URL: undefined };

async function ok(args: string[], env: Record<string, string | undefined> = {}) {
  const run = await cli(args, { env: { ...CLEAN, ...env } });
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

async function rows<T>(url: string, query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await openLedger(url, { migrate: false, poolSize: 1 });
  try {
    return await rawAll<T>(db, query);
  } finally {
    await closeLedger(db);
  }
}

const SHIPPED = (JSON.parse(fs.readFileSync(path.join(findPgMigrationsFolder(), "meta", "_journal.json"), "utf8")) as { entries: unknown[] }).entries.length;

describe.skipIf(!pgAdminUrl)("the command line on PostgreSQL", () => {
  it("migrates an empty database once: every shipped migration, then none", async () => {
    const url = await createTestDatabase(pgAdminUrl!);
    const first = JSON.parse((await ok(["--database-url", url, "--json", "migrate"])).stdout) as { database: string; applied: number; tables: number };
    expect(first).toMatchObject({ applied: SHIPPED });
    expect(first.tables).toBeGreaterThan(40);
    expect(JSON.parse((await ok(["--database-url", url, "--json", "migrate"])).stdout)).toMatchObject({ applied: 0, tables: first.tables });
  });

  it("runs BAZINGA's task flow in local mode with the same rules: a claimant cannot verify, another verifier can", async () => {
    const url = await createTestDatabase(pgAdminUrl!);
    const env = { PROOFGATE_DATABASE_URL: url };
    await ok(["create-session", "bz_1", "simple", "Add the export button"], env);
    await ok(["create-task-group", "group_a", "bz_1", "Export button"], env);
    await ok(["--agent-id", "developer_1", "claim", "bz_1", "group_a", "--evidence", "artifacts/export.txt"], env);
    const proofpack = '{"verdict":"PASSED","checks":[{"name":"unit","passed":true}]}';
    const refused = await cli(["--agent-id", "developer_1", "verify", "bz_1", "group_a", "--proofpack", proofpack], { env: { ...CLEAN, ...env } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("developer_1 claimed this task and cannot verify it");
    await ok(["--agent-id", "qa_expert", "verify", "bz_1", "group_a", "--proofpack", proofpack], env);
    const task = JSON.parse((await ok(["--json", "get-task", "bz_1", "group_a"], env)).stdout) as {
      status: string;
      claimedBy: string;
      verifiedBy: string;
      transitions: { move: string }[];
    };
    expect(task).toMatchObject({ status: "verified", claimedBy: "developer_1", verifiedBy: "qa_expert" });
    expect(task.transitions.map((t) => t.move)).toEqual(["create", "claim", "verify"]);
    // The refused verify wrote nothing: one event per move that happened.
    expect(await rows<{ type: string }>(url, sql`SELECT type FROM events WHERE session_id = 'bz_1' AND entity = 'task' ORDER BY id`)).toEqual([
      { type: "task.created" },
      { type: "task.claimed" },
      { type: "task.verified" },
    ]);
  });

  it("fills an empty database with demo data, leaves a filled one alone with --if-empty, and refuses one that holds rows", async () => {
    const url = await createTestDatabase(pgAdminUrl!);
    const filled = JSON.parse((await ok(["--database-url", url, "--json", "--quiet", "demo", "--sessions", "3", "--seed", "5"])).stdout) as {
      sessions: number;
      database: string;
    };
    expect(filled.sessions).toBe(3);
    expect(await rows<{ n: number }>(url, sql`SELECT count(*) AS n FROM sessions`)).toEqual([{ n: 3 }]);
    expect(JSON.parse((await ok(["--database-url", url, "--json", "demo", "--if-empty"])).stdout)).toMatchObject({ skipped: true, existingSessions: 3 });
    const refused = await cli(["--database-url", url, "demo", "--sessions", "2"], { env: CLEAN });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^proofgate: demo: .* already holds ledger rows \(table \w+\): the target must be a fresh, empty database; nothing was written/,
    );
    expect(await rows<{ n: number }>(url, sql`SELECT count(*) AS n FROM sessions`)).toEqual([{ n: 3 }]);
  });
});
