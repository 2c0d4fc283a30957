/**
 * Progress of `demo`, `check`, `backup` and `purge` as a script sees it, off a terminal: lines on
 * stderr every PROOFGATE_PROGRESS_INTERVAL_MS (here 1 ms, so small work is long enough) and a closing
 * line per phase, the result alone on stdout; with --json or --quiet, nothing on stderr. `demo` on
 * both engines; `check`, `backup`, `purge` and `import` on a SQLite file (the commands that work on
 * a SQLite file only).
 */
// flake-risks time: a purge cutoff that only has to parse: the test reads the progress lines, not which sessions go
// flake-risks random: a unique name, nothing more: any value unlike another run's will do
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type CliResult, type Ledger, cli, closeReaders, ledgerUntouched, ledgerWorkspace, removeWorkspaces, workspace } from "@/test/support/cli-harness";
import { type Engine, describeEngines } from "@/test/support/engines";
import { copyFixture, removeTemps } from "@/test/support/import-fixtures";

// A hang guard: on PostgreSQL on a loaded machine these commands took 43–60 s.
vi.setConfig({ testTimeout: 120_000 });

const FAST = { PROOFGATE_PROGRESS_INTERVAL_MS: "1" };
const TODAY = new Date().toISOString().slice(0, 10);

// In-process calls share this process's stderr: make it a pipe's, whatever runs the tests.
const tty = Object.getOwnPropertyDescriptor(process.stderr, "isTTY");
beforeAll(() => {
  Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true });
});
afterEach(closeReaders);
afterAll(() => {
  if (tty) Object.defineProperty(process.stderr, "isTTY", tty);
  else delete (process.stderr as { isTTY?: boolean }).isTTY;
  removeWorkspaces();
  removeTemps();
});

/** A ledger with demo sessions, most of them ended (for purge). */
async function demoLedger(engine: Engine): Promise<Ledger> {
  const space = await ledgerWorkspace(engine);
  const run = await cli(["demo", ...space.flag, "--sessions", "25", "--quiet"]);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  return space;
}

interface ProgressCommand {
  name: string;
  args: (space: Ledger) => string[];
  last: RegExp;
  lines: RegExp;
  /** Runs on an empty ledger (demo: a PostgreSQL database that holds rows is refused), not on a demo one. */
  empty?: boolean;
  /** Works on a SQLite file only. */
  sqliteOnly?: boolean;
}

/** Each command with what its closing progress line says. */
const COMMANDS: ProgressCommand[] = [
  {
    name: "demo",
    empty: true,
    args: ({ flag }) => ["demo", ...flag, "--sessions", "25", "--seed", "2"],
    last: /^demo: generating 25\/25 sessions \(100%\) in \d+(?:\.\d*)? s$/m,
    // On PostgreSQL the sessions are generated into a temporary file, then copied in and verified: two more phases.
    lines:
      /^demo: (generating \d+\/25 sessions \(\d+%\)|finishing \d\/2 steps \(\d+%\)|(copying|verifying) \d+\/\d+ rows \(\d+%\)(, \d+ rows\/s)?)(, about .* s left| in .* s)?(, \d+ rows\/s)?$/,
  },
  {
    name: "check",
    sqliteOnly: true,
    args: ({ flag }) => ["check", ...flag],
    last: /^check: checking 7\/7 checks \(100%\) in \d+(?:\.\d*)? s$/m,
    lines: /^check: checking \d\/7 checks \(\d+%\)(, about .* s left| in .* s)$/,
  },
  {
    name: "backup",
    sqliteOnly: true,
    args: ({ flag, dir }) => ["backup", ...flag, path.join(dir, `copy-${Math.random().toString(36).slice(2)}.db`)],
    last: /^backup: copying (\d+)\/\1 pages \(100%\) in \d+(?:\.\d*)? s, \d+ pages\/s$/m,
    lines: /^backup: (copying \d+\/\d+ pages|verifying the copy \d\/1 checks) \(\d+%\)(, \d+ pages\/s)?(, about .* s left| in .* s)(, \d+ pages\/s)?$/,
  },
  {
    name: "purge",
    sqliteOnly: true,
    args: ({ flag }) => ["purge", ...flag, "--before", TODAY, "--yes"],
    last: /^purge: purging (\d+)\/\1 rows \(100%\) in \d+(?:\.\d*)? s, \d+ rows\/s$/m,
    lines: /^purge: purging \d+\/\d+ rows \(\d+%\)(, \d+ rows\/s, about .* s left| in .* s, \d+ rows\/s)$/,
  },
];

/** The commands of COMMANDS that run on `engine`. */
const onEngine = (engine: Engine) => COMMANDS.filter((command) => engine === "sqlite" || !command.sqliteOnly);

describeEngines("progress", (engine) => {
  describe.each(onEngine(engine))("proofgate $name, off a terminal", ({ name, args, last, lines, empty }) => {
    let space: Ledger;
    beforeEach(async () => {
      space = empty ? await ledgerWorkspace(engine) : await demoLedger(engine);
    });

    it("prints progress lines on stderr, each phase closed by a final line, and the result alone on stdout", async () => {
      const run: CliResult = await cli(args(space), { env: FAST });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(last);
      for (const line of run.stderr.trimEnd().split("\n")) expect(line).toMatch(lines);
      expect(run.stdout).not.toContain(`${name}: `);
      expect(run.stdout.trimEnd().split("\n")[0]).toMatch(/^(\/|postgres:\/\/|would|purged|backed up)/);
    });

    it("--json: one JSON document on stdout, nothing on stderr", async () => {
      const run = await cli([...args(space), "--json"], { env: FAST });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(run.stdout)).toEqual(expect.any(Object));
    });

    it("--quiet: the result, nothing on stderr", async () => {
      const run = await cli([...args(space), "--quiet"], { env: FAST });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      expect(run.stdout).not.toBe("");
    });
  });

  describe("the progress interval", () => {
    // The 5 s default itself is server/cli/progress.test.ts's (on a loaded machine a phase of these may take 5 s).
    it("with no progress line due, a command prints nothing on stderr", async () => {
      const demo = await demoLedger(engine);
      for (const command of onEngine(engine)) {
        const run = await cli(command.args(command.empty ? await ledgerWorkspace(engine) : demo), { env: { PROOFGATE_PROGRESS_INTERVAL_MS: "3600000" } });
        expect({ command: command.name, code: run.code, stderr: run.stderr }).toEqual({ command: command.name, code: 0, stderr: "" });
      }
    });

    it("refuses a PROOFGATE_PROGRESS_INTERVAL_MS that is not a positive integer, naming it, before touching the ledger", async () => {
      const db = await ledgerWorkspace(engine);
      const run = await cli(["demo", ...db.flag, "--sessions", "2"], { env: { PROOFGATE_PROGRESS_INTERVAL_MS: "0" } });
      expect(run).toMatchObject({ code: 2, stderr: "proofgate: PROOFGATE_PROGRESS_INTERVAL_MS: must be an integer from 1 to 3600000 (milliseconds)\n" });
      expect(await ledgerUntouched(db)).toBe(true);
    });
  });
});

describe.each([
  { importer: "bazinga", fixture: "bazinga-v19-sample.db" },
  { importer: "shots-on-goal", fixture: "shots-on-goal-v2-sample.db" },
])("proofgate import $importer, off a terminal", ({ importer, fixture }) => {
  const source = () => copyFixture(fixture);
  const lines = /^import: [a-z_]+( \([a-z ]+\))? \d+\/\d+ rows \(\d+%\)(, \d+ rows\/s)?(, about .* s left| in .* s)(, \d+ rows\/s)?$/;

  it("prints each source table's progress on stderr and the report alone on stdout", async () => {
    const { db } = workspace();
    const run = await cli(["import", importer, source(), "--db", db], { env: FAST });
    expect(run.code).toBe(0);
    const progress = run.stderr.trimEnd().split("\n");
    expect(progress.length).toBeGreaterThan(1);
    for (const line of progress) expect(line).toMatch(lines);
    expect(run.stderr).toMatch(/^import: [a-z_]+ (\d+)\/\1 rows \(100%\) in /m);
    expect(run.stdout).not.toContain("import: ");
  });

  it("--json and --quiet: nothing on stderr", async () => {
    for (const flag of ["--json", "--quiet"]) {
      const { db } = workspace();
      const run = await cli(["import", importer, source(), "--db", db, flag], { env: FAST });
      expect({ flag, code: run.code, stderr: run.stderr }).toEqual({ flag, code: 0, stderr: "" });
    }
  });
});
