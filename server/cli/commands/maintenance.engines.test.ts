/**
 * `proofgate check` on a PostgreSQL database (`--database-url`, or PROOFGATE_DATABASE_URL), as a
 * script sees it: a ledger copied from a file with `proofgate copy` checks clean with the same
 * counts as the file; a damaged one exits 1 naming what it found; a database that cannot be
 * reached, or holds no ledger, is "database unavailable" (exit 4). Each test gets a fresh database
 * on the run's throwaway cluster (pg project).
 */
// flake-risks time: a cutoff after the copied ledger's sessions ended (when its template was made, earlier in the run)
import { type SQL, sql } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { closeLedger, openLedger, writeTransaction } from "@/db/client";
import { redactUrl } from "@/db/pg/client";
import { rawGet, rawRun } from "@/db/query";
import { type CliResult, cli, removeWorkspaces, workspace } from "@/test/support/cli-harness";
import { pgAdminUrl } from "@/test/support/engines";
import { PG_TEMPLATE, createTestDatabase } from "@/test/support/pg-cluster";

vi.setConfig({ testTimeout: 120_000 });
afterAll(removeWorkspaces);

const CLEAN = { PROOFGATE_DB: undefined, PROOFGATE_DATABASE_URL: undefined, PROOFGATE_URL: undefined };

async function ok(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const run = await cli(args, { env: { ...CLEAN, ...env } });
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

interface Report {
  ok: boolean;
  database: string;
  counts: Record<string, number>;
  checked: Record<string, number>;
  findings: { invariant: string; table: string | null; message: string }[];
}

/** What is counted of the storage differs by engine; the rows of every ledger table must not. */
const STORAGE = ["integrity_check", "foreign_key_check", "triggers", "foreign keys", "bt_index_check", "sessions_search", "sessions_search_idx"];
const ledgerRows = (checked: Record<string, number>) => Object.fromEntries(Object.entries(checked).filter(([what]) => !STORAGE.includes(what)));

/** A file with demo data, copied into a fresh PostgreSQL database with `proofgate copy`. */
async function copiedLedger(): Promise<{ file: string; url: string }> {
  const { db: file } = workspace();
  await ok(["--db", file, "--quiet", "demo", "--sessions", "4", "--seed", "2"]);
  const url = await createTestDatabase(pgAdminUrl!, undefined, { template: PG_TEMPLATE });
  await ok(["--quiet", "copy", "--from", file, "--to", url]);
  return { file, url };
}

/** Statements on the database with its triggers off for the transaction (foreign keys included), as a write path past the rules would. */
async function damage(url: string, ...statements: SQL[]): Promise<void> {
  const db = await openLedger(url, { migrate: false, poolSize: 1 });
  try {
    await writeTransaction(db, async () => {
      await rawRun(db, sql`SET LOCAL session_replication_role = replica`);
      for (const statement of statements) expect((await rawRun(db, statement)).changes, "rows the damage wrote").toBe(1);
    });
  } finally {
    await closeLedger(db);
  }
}

async function rawGetOn<T>(url: string, query: SQL): Promise<T> {
  const db = await openLedger(url, { migrate: false, poolSize: 1 });
  try {
    return await rawGet<T>(db, query);
  } finally {
    await closeLedger(db);
  }
}

describe.skipIf(!pgAdminUrl)("proofgate check on PostgreSQL", () => {
  it("passes a ledger copied from a file, with the same counts as the file, by --database-url and by PROOFGATE_DATABASE_URL", async () => {
    const { file, url } = await copiedLedger();
    const onFile = JSON.parse((await ok(["--db", file, "--json", "check"])).stdout) as Report;
    const onPg = JSON.parse((await ok(["--database-url", url, "--json", "check"])).stdout) as Report;
    expect(onFile.ok).toBe(true);
    expect(onPg).toMatchObject({ ok: true, findings: [], database: url, counts: onFile.counts });
    expect(ledgerRows(onPg.checked)).toEqual(ledgerRows(onFile.checked));
    expect(onPg.checked.tasks).toBeGreaterThan(0);
    expect(onPg.checked.triggers).toBeGreaterThan(90);
    const text = await ok(["check"], { PROOFGATE_DATABASE_URL: url });
    expect(text.stdout).toMatch(new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: every invariant holds\n {2}ok {4}database\\.integrity\n`));
    expect(text.stdout).toContain("  ok    database.triggers\n");
  });

  it("exits 1 on a damaged ledger, naming each finding in text and in --json; a password in the URL is never shown", async () => {
    const { url } = await copiedLedger();
    // A claimed task's claim, deleted past the append-only trigger: its history now ends before its status.
    const claim = await rawGetOn<{ id: number }>(
      url,
      sql`SELECT max(t.id) AS id FROM task_transitions t JOIN tasks k ON k.id = t.task_id WHERE k.status = 'claimed' AND t.move = 'claim'
            AND NOT EXISTS (SELECT 1 FROM task_transitions u WHERE u.task_id = t.task_id AND u.id > t.id)`,
    );
    await damage(url, sql`DELETE FROM task_transitions WHERE id = ${claim.id}`);
    await rawGetOn(url, sql`DROP TRIGGER tasks_no_delete ON tasks`);
    const withPassword = url.replace(/^postgres(ql)?:\/\/([^@/:]+)@/, "postgres://$2:hunter2@");
    expect(withPassword).toContain(":hunter2@");
    const shown = redactUrl(withPassword);
    const text = await cli(["--database-url", withPassword, "check"], { env: CLEAN });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/ {2}FAIL {2}database\.triggers \(1\)\n {10}- enforcement trigger tasks_no_delete on tasks is missing\n/);
    expect(text.stdout).toMatch(/ {2}FAIL {2}task\.history \(1\)\n {10}- task .* is claimed, but its last transition ended at (pending|in_progress)\n/);
    expect(text.stderr).toBe(`proofgate: ${shown}: database.triggers 1, task.history 1\n`);
    const json = await cli(["--database-url", withPassword, "--json", "check"], { env: CLEAN });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      database: shown,
      counts: { "database.triggers": 1, "task.history": 1, "event.missing": 0 },
    });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { rule: "check.failed" } });
    expect(`${text.stdout}${text.stderr}${json.stdout}${json.stderr}`).not.toContain("hunter2");
  });

  it("is 'database unavailable' (exit 4) for a server that cannot be reached and for a database with no ledger in it, which it leaves as it was", async () => {
    const nowhere = await cli(["--database-url", "postgres://nobody@127.0.0.1:1/none", "check"], { env: CLEAN });
    expect(nowhere.code).toBe(4);
    expect(nowhere.stderr).toMatch(/^proofgate: database unavailable: /);
    const empty = await createTestDatabase(pgAdminUrl!);
    const run = await cli(["--database-url", empty, "check"], { env: CLEAN });
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 4,
      stderr: `proofgate: database unavailable: ${empty} holds no Proofgate ledger (create it with proofgate migrate --database-url …)\n`,
    });
    const db = await openLedger(empty, { migrate: false, poolSize: 1 });
    try {
      expect(await rawGet<{ n: number }>(db, sql`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'`)).toEqual({ n: 0 });
    } finally {
      await closeLedger(db);
    }
  });
});

describe.skipIf(!pgAdminUrl)("proofgate purge on PostgreSQL", () => {
  it("previews with --dry-run (writing nothing), purges with --yes through the recorded path, and leaves a ledger check passes", async () => {
    const { url } = await copiedLedger();
    const env = { PROOFGATE_DATABASE_URL: url };
    const before = new Date().toISOString();
    const sessions = async () => (await rawGetOn<{ n: number }>(url, sql`SELECT count(*) AS n FROM sessions`)).n;
    const all = await sessions();
    const dry = JSON.parse((await ok(["--json", "purge", "--before", before, "--dry-run"], env)).stdout) as {
      dryRun: boolean;
      sessions: string[];
      purgeId: null;
    };
    expect(dry).toMatchObject({ dryRun: true, purgeId: null });
    expect(dry.sessions.length).toBeGreaterThan(0);
    expect(await sessions()).toBe(all);
    const done = JSON.parse((await ok(["--database-url", url, "--json", "purge", "--before", before, "--yes", "--reason", "retention test"])).stdout) as {
      sessions: string[];
      purgeId: number;
      rows: Record<string, number>;
    };
    expect(done.sessions).toEqual(dry.sessions);
    expect(await sessions()).toBe(all - dry.sessions.length);
    expect(await rawGetOn(url, sql`SELECT reason, sessions_deleted, finished_at IS NOT NULL AS finished FROM purges WHERE id = ${done.purgeId}`)).toEqual({
      reason: "retention test",
      sessions_deleted: dry.sessions.length,
      finished: true,
    });
    const report = JSON.parse((await ok(["--database-url", url, "--json", "check"])).stdout) as Report;
    expect(report).toMatchObject({ ok: true, findings: [] });
  });
});
