/**
 * Choosing the engine from the command line: `--database-url` (or PROOFGATE_DATABASE_URL) names a
 * PostgreSQL database, `--db` (or PROOFGATE_DB) a SQLite file. A choice that cannot be used, and a
 * command that works only on a SQLite file, are refused before anything is opened: exit 2, a
 * message that names the flag or the command and says what to do instead. None of these needs
 * PostgreSQL (the URL points nowhere); the commands on a real database are in
 * database-url.engines.test.ts.
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { cli, removeWorkspaces, workspace } from "@/test/support/cli-harness";

afterAll(removeWorkspaces);

const NOWHERE = "postgres://nobody@127.0.0.1:1/none";
const CLEAN = { PROOFGATE_DB: undefined, PROOFGATE_DATABASE_URL: undefined, PROOFGATE_URL: undefined, BETTER_AUTH_SECRET: undefined };

async function refused(args: string[], message: RegExp, env: Record<string, string | undefined> = {}) {
  const run = await cli(args, { env: { ...CLEAN, ...env } });
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(message) as string });
  return run;
}

describe("choosing the engine", () => {
  it("refuses --db and --database-url together, and a --database-url that is not a postgres:// URL", async () => {
    const { db } = workspace();
    await refused(["--db", db, "--database-url", NOWHERE, "list-sessions"], /--db and --database-url: give one or the other/);
    await refused(["--database-url", db, "list-sessions"], /--database-url: must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(fs.existsSync(db)).toBe(false);
  });

  it("refuses a PROOFGATE_DATABASE_URL that is not a postgres:// URL, naming the variable; --db beats it", async () => {
    const { db } = workspace();
    await refused(["list-sessions"], /^proofgate: PROOFGATE_DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/, {
      PROOFGATE_DATABASE_URL: "mysql://x@y/z",
    });
    const run = await cli(["--db", db, "create-session", "s1", "simple", "Flag beats the environment"], {
      env: { ...CLEAN, PROOFGATE_DATABASE_URL: "mysql://x@y/z" },
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(fs.existsSync(db)).toBe(true);
  });

  it("refuses, on a PostgreSQL database, each command that works on a SQLite file only, saying what to do instead", async () => {
    const { dir } = workspace();
    const cases: [string[], RegExp][] = [
      [["backup", `${dir}/b.db`], /^proofgate: backup: works on a SQLite file, not on a PostgreSQL database; back up a PostgreSQL database with pg_dump/],
      [["query", "SELECT 1"], /^proofgate: query: works on a SQLite file, not on a PostgreSQL database; run SQL on PostgreSQL with psql/],
      [["integrity-check"], /^proofgate: integrity-check: works on a SQLite file, not on a PostgreSQL database/],
      [["init", "mcp"], /^proofgate: init: agents reach a PostgreSQL ledger through a server/],
    ];
    for (const [args, message] of cases) {
      await refused(["--database-url", NOWHERE, ...args], message);
      await refused(args, message, { PROOFGATE_DATABASE_URL: NOWHERE });
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("refuses to serve a PostgreSQL database without BETTER_AUTH_SECRET, which every server must share", async () => {
    await refused(
      ["--database-url", NOWHERE, "serve", "--port", "3999"],
      /^proofgate: BETTER_AUTH_SECRET must be set \(at least 32 characters, the same on every server\)/,
    );
    await refused(["serve", "--port", "3999"], /^proofgate: BETTER_AUTH_SECRET must be set/, {
      PROOFGATE_DATABASE_URL: NOWHERE,
      BETTER_AUTH_SECRET: "too short",
    });
  });

  it("reports a PostgreSQL database it cannot reach as unavailable (exit 4), without a stack", async () => {
    const run = await cli(["--database-url", NOWHERE, "list-sessions"], { env: CLEAN });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^proofgate: database unavailable: /);
  });
});
