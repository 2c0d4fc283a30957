/**
 * `proofgate import` on both engines (`--db FILE` or `--database-url postgres://…`): exit codes a
 * script can rely on, the summary with --json, the same rows per entity on a file and on
 * PostgreSQL, nothing written for a bad source, and --follow picking up what BAZINGA appends and
 * stopping cleanly. The mapping itself is tested in server/services/import.
 */
// flake-risks time: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
// flake-risks wait: the poll interval of a loop that awaits a condition
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { getTableColumns } from "drizzle-orm";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { queryAll } from "@/db/query";
import {
  attempts,
  contextPackages,
  events,
  goals,
  importRecords,
  orchestrationLogs,
  sessions,
  successCriteria,
  tasks,
  tokenUsage,
  toolCalls,
} from "@/db/schema";
import type { ImportReport } from "@/server/services/import/report";
import {
  type Ledger,
  SPAWN,
  cli,
  closeReaders,
  count,
  ledgerCount,
  ledgerUntouched,
  ledgerWorkspace,
  removeWorkspaces,
  start,
  until,
} from "@/test/support/cli-harness";
import { describeEngines, pgAdminUrl } from "@/test/support/engines";
import { copyFixture, removeTemps, sha256, withSource } from "@/test/support/import-fixtures";
import { tableCountsOf } from "@/test/support/rows";

vi.setConfig({ testTimeout: 120_000 });
afterEach(closeReaders);
afterAll(() => {
  removeWorkspaces();
  removeTemps();
});

const CLEAN = { PROOFGATE_DB: undefined, PROOFGATE_DATABASE_URL: undefined, PROOFGATE_URL: undefined };
const run = (ledger: Ledger, ...args: string[]) => cli([...args, ...ledger.flag], { env: CLEAN });
/** What an import reports per entity, without the time it took. */
const entitiesOf = (stdout: string) => (JSON.parse(stdout) as ImportReport).entities;

describeEngines("proofgate import bazinga", (engine) => {
  it("exits 3 for a file that does not exist, and writes nothing", async () => {
    const ledger = await ledgerWorkspace(engine);
    const missing = path.join(ledger.dir, "bazinga.db");
    const result = await run(ledger, "import", "bazinga", missing);
    expect(result).toMatchObject({ code: 3, stdout: "" });
    expect(result.stderr).toBe(`proofgate: no file at ${missing} (check the path to the database you want to import)\n`);
    expect(await ledgerUntouched(ledger)).toBe(true);
  });

  it("exits 2 for a file that is not a BAZINGA database, saying what it is, and writes nothing", async () => {
    const ledger = await ledgerWorkspace(engine);
    const text = path.join(ledger.dir, "notes.txt");
    fs.writeFileSync(text, "This is a text file, not a database. ".repeat(10));
    const notSqlite = await run(ledger, "import", "bazinga", text, "--json");
    expect(notSqlite.code).toBe(2);
    expect(JSON.parse(notSqlite.stderr)).toEqual({
      error: { rule: "import.not_sqlite", message: `path: ${text} is not a BAZINGA database: it is not an SQLite database at all` },
    });
    const sog = copyFixture("shots-on-goal-v2-sample.db", ledger.dir);
    const wrongTool = await run(ledger, "import", "bazinga", sog);
    expect(wrongTool.code).toBe(2);
    expect(wrongTool.stderr).toMatch(/is not a BAZINGA database: .* use `proofgate import shots-on-goal`/);
    expect(await ledgerUntouched(ledger)).toBe(true);
  });

  it("imports, prints the summary per entity (JSON with --json), and a second run imports nothing", async () => {
    const ledger = await ledgerWorkspace(engine);
    const source = copyFixture("bazinga-v19-sample.db", ledger.dir);
    const bytes = sha256(source);
    const first = await run(ledger, "import", "bazinga", source, "--json");
    expect(first).toMatchObject({ code: 0, stderr: "" });
    const report = JSON.parse(first.stdout) as ImportReport;
    expect(report.schema.version).toBe("v19");
    expect(report.entities.find((e) => e.entity === "task groups")).toMatchObject({ imported: count(source, "SELECT * FROM task_groups"), skipped: 0 });
    expect(report.entities.reduce((n, e) => n + e.skipped, 0)).toBe(0);
    const rowsAfterFirst = await ledgerCount(ledger, "SELECT id FROM events");
    const again = await run(ledger, "import", "bazinga", source, "--json");
    expect(again.code).toBe(0);
    expect(entitiesOf(again.stdout).reduce((n, e) => n + e.imported + e.updated, 0)).toBe(0);
    const text = await run(ledger, "import", "bazinga", source);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ +task groups\s+11\s+0\s+0\s+11\s+0$/m);
    expect(await ledgerCount(ledger, "SELECT id FROM tasks")).toBe(count(source, "SELECT * FROM task_groups"));
    expect(await ledgerCount(ledger, "SELECT id FROM events")).toBe(rowsAfterFirst);
    // Read-only: the source is byte for byte what it was.
    expect(sha256(source)).toBe(bytes);
  });

  it("--follow imports, picks up a row BAZINGA appends, and exits 0 when stopped (SIGTERM)", async () => {
    const ledger = await ledgerWorkspace(engine);
    const source = copyFixture("bazinga-v19-sample.db", ledger.dir);
    const before = new Set(process.listeners("SIGTERM"));
    const following = start(["import", "bazinga", source, ...ledger.flag, "--follow", "--interval", "100", "--json"], { env: CLEAN });
    let logs = 0;
    let appended = 0;
    try {
      await until(() => following.stdout().includes('"pass":1'));
      logs = await ledgerCount(ledger, "SELECT id FROM orchestration_logs");
      expect(logs).toBe(count(source, "SELECT * FROM orchestration_logs"));
      const session = withSource(source, (s) => s.prepare("SELECT session_id FROM sessions ORDER BY session_id LIMIT 1").pluck().get() as string);
      withSource(source, (s) =>
        s
          .prepare(
            "INSERT INTO orchestration_logs (session_id, agent_type, content, log_type) VALUES (?, 'developer', 'appended while following', 'interaction')",
          )
          .run(session),
      );
      const deadline = Date.now() + 45_000;
      while (appended === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        appended = await ledgerCount(ledger, "SELECT id FROM orchestration_logs WHERE content = 'appended while following'");
      }
    } finally {
      // SIGTERM to the listener the command installed (spawned: Ctrl-C, which it handles the same way); also when a wait
      // above failed, so the follower does not hold the harness's queue for the tests after this one.
      if (SPAWN) following.interrupt();
      else for (const listener of process.listeners("SIGTERM").filter((l) => !before.has(l))) listener("SIGTERM");
    }
    const done = await following.done;
    expect(done.code).toBe(0);
    const lines = done.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { pass?: number; stopped?: boolean });
    expect(lines[0]).toMatchObject({ pass: 1, source: "bazinga" });
    expect(lines.at(-1)).toMatchObject({ stopped: true });
    expect(appended).toBe(1);
    expect(await ledgerCount(ledger, "SELECT id FROM orchestration_logs")).toBe(logs + 1);
    expect(await ledgerCount(ledger, "SELECT id FROM sessions")).toBe(count(source, "SELECT * FROM sessions"));
  });
});

describeEngines("proofgate import shots-on-goal", (engine) => {
  it("imports either schema, exits 3 for a missing file and 2 for a file that is not shots-on-goal's, writing nothing for those", async () => {
    const ledger = await ledgerWorkspace(engine);
    const missing = await run(ledger, "import", "shots-on-goal", path.join(ledger.dir, "shots.db"));
    expect(missing.code).toBe(3);
    const bazinga = await run(ledger, "import", "shots-on-goal", copyFixture("bazinga-v19-sample.db", ledger.dir));
    expect(bazinga.code).toBe(2);
    expect(bazinga.stderr).toMatch(/is not a shots-on-goal database: .*use `proofgate import bazinga`/);
    expect(await ledgerUntouched(ledger)).toBe(true);
    for (const [fixture, version, attempts] of [
      ["shots-on-goal-v2-sample.db", "v2", "SELECT * FROM attempt"],
      ["shots-on-goal-v1-sample.db", "v1", "SELECT * FROM attempts"],
    ] as const) {
      const source = copyFixture(fixture, ledger.dir);
      const result = await run(ledger, "import", "shots-on-goal", source, "--json");
      expect(result).toMatchObject({ code: 0, stderr: "" });
      const report = JSON.parse(result.stdout) as ImportReport;
      expect(report.schema.version).toBe(version);
      expect(report.entities.find((e) => e.entity === "attempts")).toMatchObject({ imported: count(source, attempts), skipped: 0 });
    }
    const again = await run(ledger, "import", "shots-on-goal", path.join(ledger.dir, "shots-on-goal-v2-sample.db"));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^ +tool calls\s+101\s+0\s+0\s+101\s+0$/m);
  });
});

describe("proofgate import through a server", () => {
  it("exits 2 when asked to import through a server instead of into the ledger itself", async () => {
    const { dir } = await ledgerWorkspace("sqlite");
    const source = copyFixture("bazinga-v19-sample.db", dir);
    const result = await cli(["import", "bazinga", source, "--url", "http://127.0.0.1:9"], { env: CLEAN });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/give --db \(or PROOFGATE_DB\) or --database-url \(or PROOFGATE_DATABASE_URL\) instead of --url/);
  });
});

describe.skipIf(!pgAdminUrl)("proofgate import on a file and on PostgreSQL", () => {
  /** Every table's row count after importing each fixture, and the reports' counts per entity. */
  async function importAll(ledger: Ledger) {
    const entities: unknown[] = [];
    for (const [kind, fixture] of [
      ["bazinga", "bazinga-v19-sample.db"],
      ["shots-on-goal", "shots-on-goal-v2-sample.db"],
      ["shots-on-goal", "shots-on-goal-v1-sample.db"],
    ] as const) {
      const result = await run(ledger, "import", kind, copyFixture(fixture, ledger.dir), "--json");
      expect({ fixture, code: result.code, stderr: result.stderr }).toEqual({ fixture, code: 0, stderr: "" });
      entities.push(entitiesOf(result.stdout));
    }
    const db = await openLedger(ledger.target, { migrate: false, poolSize: 1 });
    try {
      return { entities, tables: await tableCountsOf(db), contents: await contentsOf(db) };
    } finally {
      await closeLedger(db);
    }
  }

  /**
   * The imported rows of the main tables, as Drizzle reads them on either engine (dates as ISO
   * strings), without what differs by run: row ids, the time of the import, events' hashes and data.
   */
  async function contentsOf(db: Db): Promise<Record<string, string[]>> {
    const tables = { sessions, tasks, successCriteria, orchestrationLogs, tokenUsage, importRecords, goals, attempts, toolCalls, contextPackages, events };
    const varying = new Set(["id", "importedAt", "updatedAt", "createdAt", "targetId", "hash", "prevHash", "data"]);
    const contents: Record<string, string[]> = {};
    for (const [name, table] of Object.entries(tables)) {
      const columns = Object.keys(getTableColumns(table)).filter((column) => !varying.has(column));
      const rows = (await queryAll(db.select().from(table as typeof sessions))) as Record<string, unknown>[];
      contents[name] = rows
        .map((row) => JSON.stringify(columns.map((column) => (row[column] instanceof Date ? (row[column] as Date).toISOString() : row[column]))))
        .sort();
    }
    return contents;
  }

  it("writes the same rows on both engines: per entity, per table, and the imported rows themselves", async () => {
    const onFile = await importAll(await ledgerWorkspace("sqlite"));
    const onPg = await importAll(await ledgerWorkspace("postgres"));
    expect(onPg.entities).toEqual(onFile.entities);
    // SQLite's sessions search table (FTS5) has no twin on PostgreSQL (an index).
    const ledgerTables = (tables: Record<string, number>) => Object.fromEntries(Object.entries(tables).filter(([name]) => !name.startsWith("sessions_search")));
    expect(ledgerTables(onPg.tables)).toEqual(ledgerTables(onFile.tables));
    expect(onPg.contents).toEqual(onFile.contents);
    expect(onPg.tables.orchestration_logs).toBeGreaterThan(0);
    expect(onPg.tables.attempts).toBeGreaterThan(0);
  });
});
