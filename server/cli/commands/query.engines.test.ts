/**
 * `proofgate query` on a SQLite file and on a PostgreSQL database: the same reads allowed, every
 * write and side effect refused with exit 2 and no row changed, BAZINGA's prompts' queries
 * (.claude/skills/context-assembler/SKILL.md) giving the same JSON on both, remote mode refused.
 * The statement timeout is PostgreSQL's only (better-sqlite3 cannot interrupt a statement).
 */
// flake-risks wait: pg_sleep inside a string literal and a comment: nothing sleeps
import { sql } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { closeLedger, openLedger } from "@/db/client";
import { openPgDatabase, closePgDatabase } from "@/db/pg/client";
import { createTestDatabase, PG_TEMPLATE } from "@/test/support/pg-cluster";
import { type CliResult, type Ledger, cli, closeReaders, ledgerWorkspace, removeWorkspaces } from "@/test/support/cli-harness";
import { type Engine, describeEngines, pgAdminUrl } from "@/test/support/engines";
import { rowsOf, runLikeSqlite, tableCountsOf } from "@/test/support/rows";
import { UsageError } from "../errors";
import { queryPostgres } from "./query-pg";

vi.setConfig({ testTimeout: 60_000 });
afterEach(closeReaders);
afterAll(removeWorkspaces);

async function ok(db: Ledger, ...args: string[]): Promise<CliResult> {
  const run = await cli([...args, ...db.flag]);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

async function query(db: Ledger, sql: string): Promise<unknown> {
  return JSON.parse((await ok(db, "--json", "query", sql)).stdout) as unknown;
}

/**
 * Sessions `s` (project `proofgate`) and `t`; task group `A`; three context packages of `s`, two
 * read by one agent each; five error patterns, four above 0.7. Written in the same order on both
 * engines, so ids and times are the same.
 */
async function bazingaLedger(engine: Engine): Promise<Ledger> {
  const db = await ledgerWorkspace(engine);
  await ok(db, "create-session", "s", "parallel", "req", "--metadata", '{"project_id":"proofgate","tags":["a",{"k":1}],"n":2.5,"ok":true,"none":null}');
  await ok(db, "create-session", "t", "simple", "req");
  await ok(db, "create-task-group", "A", "s", "Group A");
  const writer = await openLedger(db.target, { migrate: false, poolSize: 1 });
  try {
    const packages: [string | null, string, string, string][] = [
      ["A", "research", "docs/a.md", "high"],
      [null, "decisions", "docs/b.md", "critical"],
      ["A", "handoff", "docs/c.md", "low"],
    ];
    for (const [i, [group, type, file, priority]] of packages.entries()) {
      await runLikeSqlite(
        writer,
        "INSERT INTO context_packages (session_id, group_id, package_type, file_path, producer_agent, priority, summary, created_at) VALUES ('s', ?, ?, ?, 'developer', ?, ?, ?)",
        group,
        type,
        file,
        priority,
        `summary ${i + 1}`,
        1_700_000_000_000 + i,
      );
    }
    for (const [scope, agent, pkg] of [
      ["c1", "developer", 1],
      ["c2", "qa_expert", 3],
    ] as const) {
      await runLikeSqlite(
        writer,
        "INSERT INTO consumption_scope (scope_id, session_id, group_id, agent_type, iteration, package_id, consumed_at) VALUES (?, 's', 'A', ?, 1, ?, 1700000000100)",
        scope,
        agent,
        pkg,
      );
    }
    for (const [hash, confidence, occurrences] of [
      ["p1", 0.9, 3],
      ["p2", 0.75, 7],
      ["p3", 0.9, 5],
      ["p4", 0.71, 1],
      ["p5", 0.7, 9],
    ] as const) {
      await runLikeSqlite(
        writer,
        "INSERT INTO error_patterns (pattern_hash, project_id, signature_json, solution, confidence, occurrences, created_at, last_seen) VALUES (?, 'proofgate', ?, ?, ?, ?, 1700000000000, 1700000000000)",
        hash,
        JSON.stringify({ error_type: "TypeError", message_pattern: `m ${hash}` }),
        `fix ${hash}`,
        confidence,
        occurrences,
      );
    }
  } finally {
    await closeLedger(writer);
  }
  return db;
}

/** Every table's row count and the rows a write would most likely touch. */
async function state(db: Ledger): Promise<unknown> {
  const reader = await openLedger(db.target, { migrate: false, poolSize: 1 });
  try {
    return {
      counts: await tableCountsOf(reader),
      tasks: await rowsOf(reader, sql`SELECT key, status FROM tasks ORDER BY key`),
      sessions: await rowsOf(reader, sql`SELECT id, status, metadata FROM sessions ORDER BY id`),
    };
  } finally {
    await closeLedger(reader);
  }
}

/** BAZINGA's queries, as its context-assembler skill sends them (session and project filled in). */
const BAZINGA = {
  packages: `SELECT cp.id, cp.file_path, cp.priority, cp.summary, cp.group_id, cp.created_at,
          GROUP_CONCAT(cs.agent_type) as consumers
   FROM context_packages cp
   LEFT JOIN consumption_scope cs ON cp.id = cs.package_id AND cs.session_id = cp.session_id
   WHERE cp.session_id = 's'
   GROUP BY cp.id`,
  projectId: "SELECT COALESCE(json_extract(metadata, '$.project_id'), 'default') as pid FROM sessions WHERE session_id = 's'",
  patterns:
    "SELECT signature_json, solution, confidence, occurrences FROM error_patterns WHERE project_id = 'proofgate' AND confidence > 0.7 ORDER BY confidence DESC, occurrences DESC LIMIT 3",
};

describeEngines("query", (engine) => {
  it("prints the rows of one SELECT (or WITH … SELECT), comments, strings and CTE column lists allowed", async () => {
    const db = await bazingaLedger(engine);
    expect(await query(db, "/* tasks */ SELECT key, status FROM tasks -- all of them")).toEqual([{ key: "A", status: "pending" }]);
    expect(await query(db, "WITH t AS (SELECT count(*) AS n FROM sessions) SELECT n FROM t")).toEqual([{ n: 2 }]);
    expect(await query(db, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r;")).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
    expect(await query(db, "SELECT 'pg_terminate_backend(1); DELETE' AS s, \"id\" FROM sessions WHERE id = 't' -- pg_sleep(9)")).toEqual([
      { s: "pg_terminate_backend(1); DELETE", id: "t" },
    ]);
    expect(await query(db, "SELECT CAST(5 AS DECIMAL(10, 2)) AS d, lower(upper('x')) AS l, ifnull(NULL, 'y') AS i")).toEqual([{ d: 5, l: "x", i: "y" }]);
  });

  it("reads SQLite's json_extract and group_concat the same way", async () => {
    const db = await bazingaLedger(engine);
    const paths = ["$.project_id", "$.missing", "$.tags[0]", "$.tags[1]", "$.tags[1].k", "$.tags[#-1].k", "$.tags[5]", "$.none", "$.ok", "$.tags"];
    const select = paths.map((path, i) => `json_extract(metadata, '${path}') AS p${i}`).join(", ");
    expect(await query(db, `SELECT ${select} FROM sessions WHERE id = 's'`)).toEqual([
      {
        p0: "proofgate",
        p1: null,
        p2: "a",
        p3: '{"k":1}',
        p4: engine === "sqlite" ? 1 : "1",
        p5: engine === "sqlite" ? 1 : "1",
        p6: null,
        p7: null,
        p8: engine === "sqlite" ? 1 : "1",
        p9: '["a",{"k":1}]',
      },
    ]);
    expect(
      await query(
        db,
        "SELECT group_concat(agent_type) AS a, group_concat(agent_type, ' | ') AS b, group_concat(package_id) AS c, group_concat(NULL) AS d FROM (SELECT agent_type, package_id FROM consumption_scope ORDER BY scope_id) AS x",
      ),
    ).toEqual([{ a: "developer,qa_expert", b: "developer | qa_expert", c: "1,3", d: null }]);
  });

  it("answers BAZINGA's context-assembler queries", async () => {
    const db = await bazingaLedger(engine);
    const packages = await query(db, BAZINGA.packages);
    expect(packages).toEqual([
      { id: 1, file_path: "docs/a.md", priority: "high", summary: "summary 1", group_id: "A", created_at: 1_700_000_000_000, consumers: "developer" },
      { id: 2, file_path: "docs/b.md", priority: "critical", summary: "summary 2", group_id: null, created_at: 1_700_000_000_001, consumers: null },
      { id: 3, file_path: "docs/c.md", priority: "low", summary: "summary 3", group_id: "A", created_at: 1_700_000_000_002, consumers: "qa_expert" },
    ]);
    // BAZINGA's sessions table has session_id; the ledger's key is id, on both engines: the prompt falls back to 'default'.
    const wrongColumn = await cli(["query", BAZINGA.projectId, ...db.flag]);
    expect({ code: wrongColumn.code, stdout: wrongColumn.stdout }).toEqual({ code: 2, stdout: "" });
    expect(wrongColumn.stderr).toMatch(/^proofgate: sql: .*session_id/);
    const projectId = await query(db, BAZINGA.projectId.replace("WHERE session_id", "WHERE id"));
    const noProject = await query(db, BAZINGA.projectId.replace("WHERE session_id = 's'", "WHERE id = 't'"));
    expect({ projectId, noProject }).toEqual({ projectId: [{ pid: "proofgate" }], noProject: [{ pid: "default" }] });
    const patterns = await query(db, BAZINGA.patterns);
    expect((patterns as { solution: string; confidence: number; occurrences: number }[]).map((p) => [p.solution, p.confidence, p.occurrences])).toEqual([
      ["fix p3", 0.9, 5],
      ["fix p1", 0.9, 3],
      ["fix p2", 0.75, 7],
    ]);
  });

  it.each([
    ["DELETE FROM tasks"],
    ["UPDATE tasks SET status = 'completed'"],
    ["WITH x AS (SELECT 1) DELETE FROM tasks"],
    ["WITH x AS (DELETE FROM tasks RETURNING key) SELECT * FROM x"],
    ["WITH x AS (INSERT INTO sessions SELECT * FROM sessions RETURNING id) SELECT * FROM x"],
    ["SELECT * FROM tasks FOR UPDATE"],
    ["SELECT * INTO copied FROM tasks"],
    ["SELECT 1; DELETE FROM tasks"],
    ["SELECT 1; SELECT 2"],
    ["/* sneaky */ DROP TABLE tasks"],
    ["SELECT nextval('context_packages_id_seq')"],
    ["SELECT pg_terminate_backend(pg_backend_pid())"],
    ["SELECT pg_catalog.pg_cancel_backend(pg_backend_pid())"],
    ['SELECT "pg_reload_conf"()'],
    ["SELECT pg_advisory_lock /* spaced */ (1)"],
    ["SELECT set_config('role', 'none', false), key FROM tasks"],
    ["SELECT query_to_xml('DELETE FROM tasks', true, false, '')"],
    ["SELECT lo_import('/etc/passwd')"],
    ["SELECT 1 /* /* nested */ ' */, pg_terminate_backend(1) --' AS x"],
    ["SELECT $q$ ' $q$ AS a, pg_terminate_backend(1) AS b --'"],
    ["SELECT E'\\'', pg_terminate_backend(1) -- '"],
    ["SELECT public.lower('x')"],
    ["SELECT * FROM no_such_table"],
    ["SELECT json_extract('not json', '$') AS v"],
    ["SELECT json_extract('{}', 'no path') AS v"],
    [""],
  ])("refuses %j with exit 2 and changes no row", async (statement) => {
    const db = await bazingaLedger(engine);
    const before = await state(db);
    const run = await cli(["query", statement, ...db.flag]);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(/^proofgate: sql: /);
    expect(await state(db)).toEqual(before);
  });

  it("is refused in remote mode", async () => {
    const run = await cli(["query", "SELECT 1"], { env: { PROOFGATE_URL: "http://127.0.0.1:9", PROOFGATE_DB: undefined, PROOFGATE_DATABASE_URL: undefined } });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
    expect(run.stderr).toContain("local mode only");
  });
});

describe.skipIf(!pgAdminUrl)("BAZINGA's queries on both engines", () => {
  it("give the same JSON on the same data", async () => {
    const answers = [];
    for (const engine of ["sqlite", "postgres"] as const) {
      const db = await bazingaLedger(engine);
      answers.push({
        packages: await query(db, BAZINGA.packages),
        projectId: await query(db, BAZINGA.projectId.replace("WHERE session_id", "WHERE id")),
        patterns: await query(db, BAZINGA.patterns),
      });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0]!.packages).toHaveLength(3);
  });
});

describe.skipIf(!pgAdminUrl)("query on PostgreSQL: the statement timeout", () => {
  const RUNAWAY = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n FROM r";

  it("cancels a statement that runs past --timeout: exit 2, naming --timeout", async () => {
    const db = await ledgerWorkspace("postgres");
    const run = await cli(["query", "--timeout", "200", RUNAWAY, ...db.flag]);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(/^proofgate: sql: canceled after 200 ms \(--timeout\): canceling statement due to statement timeout/);
  });

  it("refuses a --timeout that is not a whole number of milliseconds", async () => {
    const db = await ledgerWorkspace("postgres");
    const run = await cli(["query", "--timeout", "0", "SELECT 1", ...db.flag]);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
    expect(run.stderr).toContain("--timeout");
  });

  it("names the migration when SQLite's functions are missing (a ledger migrated before 0004)", async () => {
    const pg = await openPgDatabase(await createTestDatabase(pgAdminUrl!, undefined, { template: PG_TEMPLATE }), { migrate: false, max: 1 });
    try {
      await pg.$client.query("DROP SCHEMA proofgate_sqlite CASCADE");
      await expect(queryPostgres(pg.$client, "SELECT json_extract(metadata, '$.a') AS a FROM sessions")).rejects.toThrow(
        /^sql: function json_extract\(text, unknown\) does not exist \(SQLite's functions come with the ledger's migrations: proofgate migrate --database-url …\)$/,
      );
    } finally {
      await closePgDatabase(pg);
    }
  });

  it("rolls back and gives the connection back to the pool, idle, after a timeout", async () => {
    const pg = await openPgDatabase(await createTestDatabase(pgAdminUrl!, undefined, { template: PG_TEMPLATE }), { migrate: false, max: 1 });
    try {
      await expect(queryPostgres(pg.$client, RUNAWAY, 100)).rejects.toThrow(UsageError);
      expect({ total: pg.$client.totalCount, idle: pg.$client.idleCount, waiting: pg.$client.waitingCount }).toEqual({ total: 1, idle: 1, waiting: 0 });
      // The same (only) connection, out of any transaction, with the session's own settings back.
      const { rows } = await pg.$client.query<{ state: string; timeout: string; path: string }>(
        "SELECT state, current_setting('statement_timeout') AS timeout, current_setting('search_path') AS path FROM pg_stat_activity WHERE pid = pg_backend_pid()",
      );
      expect(rows).toEqual([{ state: "active", timeout: "0", path: '"$user", public' }]);
      // The connection serves the next query (its own, default timeout: 100 ms is not enough for a first plan on a loaded machine).
      expect(await queryPostgres(pg.$client, "SELECT count(*) AS n FROM sessions")).toEqual([{ n: 0 }]);
    } finally {
      await closePgDatabase(pg);
    }
  });
});
