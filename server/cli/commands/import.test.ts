/**
 * `proofgate import`: exit codes a script can rely on, the summary with --json, and --follow
 * stopping cleanly on Ctrl-C. The mapping itself is tested in server/services/import.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { copyFixture, removeTemps, sha256 } from "@/test/support/import-fixtures";
import type { ImportReport } from "@/server/services/import/report";
import { SPAWN, cli, count, removeWorkspaces, start, until, workspace } from "@/test/support/cli-harness";

vi.setConfig({ testTimeout: SPAWN ? 120_000 : 60_000 });
afterAll(() => {
  removeWorkspaces();
  removeTemps();
});

describe("proofgate import bazinga", () => {
  it("exits 3 for a file that does not exist, and creates no ledger", async () => {
    const { dir, db } = workspace();
    const run = await cli(["import", "bazinga", path.join(dir, "bazinga.db"), "--db", db]);
    expect(run).toMatchObject({ code: 3, stdout: "" });
    expect(run.stderr).toBe(`proofgate: no file at ${path.join(dir, "bazinga.db")} (check the path to the database you want to import)\n`);
    expect(fs.existsSync(db)).toBe(false);
  });

  it("exits 2 for a file that is not a BAZINGA database, saying what it is", async () => {
    const { dir, db } = workspace();
    const text = path.join(dir, "notes.txt");
    fs.writeFileSync(text, "This is a text file, not a database. ".repeat(10));
    const notSqlite = await cli(["import", "bazinga", text, "--db", db, "--json"]);
    expect(notSqlite.code).toBe(2);
    expect(JSON.parse(notSqlite.stderr)).toEqual({
      error: { rule: "import.not_sqlite", message: `path: ${text} is not a BAZINGA database: it is not an SQLite database at all` },
    });
    const sog = copyFixture("shots-on-goal-v2-sample.db", dir);
    const wrongTool = await cli(["import", "bazinga", sog, "--db", db]);
    expect(wrongTool.code).toBe(2);
    expect(wrongTool.stderr).toMatch(/is not a BAZINGA database: .* use `proofgate import shots-on-goal`/);
    expect(fs.existsSync(db)).toBe(false);
  });

  it("exits 2 when asked to import through a server instead of into a database file", async () => {
    const { dir } = workspace();
    const source = copyFixture("bazinga-v19-sample.db", dir);
    const run = await cli(["import", "bazinga", source, "--url", "http://127.0.0.1:9"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/give --db \(or PROOFGATE_DB\) instead of --url/);
  });

  it("imports, prints the summary per entity (JSON with --json), and a second run imports nothing", async () => {
    const { dir, db } = workspace();
    const source = copyFixture("bazinga-v19-sample.db", dir);
    const first = await cli(["import", "bazinga", source, "--db", db, "--json"]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    const report = JSON.parse(first.stdout) as ImportReport;
    expect(report.schema.version).toBe("v19");
    expect(report.entities.find((e) => e.entity === "task groups")).toMatchObject({ imported: count(source, "SELECT * FROM task_groups"), skipped: 0 });
    const text = await cli(["import", "bazinga", source, "--db", db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^\s+task groups\s+11\s+0\s+0\s+11\s+0$/m);
    expect(count(db, "SELECT * FROM tasks")).toBe(count(source, "SELECT * FROM task_groups"));
  });

  it("--follow imports, keeps importing, and stops cleanly on Ctrl-C", async () => {
    const { dir, db } = workspace();
    const source = copyFixture("bazinga-v19-sample.db", dir);
    const bytes = sha256(source);
    const following = start(["import", "bazinga", source, "--db", db, "--follow", "--interval", "100", "--json"]);
    await until(() => following.stdout().includes('"pass":1'));
    following.interrupt();
    const done = await following.done;
    expect(done.code).toBe(0);
    const lines = done.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { pass?: number; stopped?: boolean });
    expect(lines[0]).toMatchObject({ pass: 1, source: "bazinga" });
    expect(lines.at(-1)).toMatchObject({ stopped: true });
    expect(count(db, "SELECT * FROM sessions")).toBe(count(source, "SELECT * FROM sessions"));
    expect(sha256(source)).toBe(bytes);
  });
});

describe("proofgate import shots-on-goal", () => {
  it("imports either schema, exits 3 for a missing file and 2 for a file that is not shots-on-goal's", async () => {
    const { dir, db } = workspace();
    const missing = await cli(["import", "shots-on-goal", path.join(dir, "shots.db"), "--db", db]);
    expect(missing.code).toBe(3);
    const bazinga = await cli(["import", "shots-on-goal", copyFixture("bazinga-v19-sample.db", dir), "--db", db]);
    expect(bazinga.code).toBe(2);
    expect(bazinga.stderr).toMatch(/is not a shots-on-goal database: .*use `proofgate import bazinga`/);
    expect(fs.existsSync(db)).toBe(false);
    for (const [fixture, version, attempts] of [
      ["shots-on-goal-v2-sample.db", "v2", "SELECT * FROM attempt"],
      ["shots-on-goal-v1-sample.db", "v1", "SELECT * FROM attempts"],
    ] as const) {
      const source = copyFixture(fixture, dir);
      const run = await cli(["import", "shots-on-goal", source, "--db", db, "--json"]);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      const report = JSON.parse(run.stdout) as ImportReport;
      expect(report.schema.version).toBe(version);
      expect(report.entities.find((e) => e.entity === "attempts")).toMatchObject({ imported: count(source, attempts), skipped: 0 });
    }
    const again = await cli(["import", "shots-on-goal", path.join(dir, "shots-on-goal-v2-sample.db"), "--db", db]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^\s+tool calls\s+101\s+0\s+0\s+101\s+0$/m);
  });
});
