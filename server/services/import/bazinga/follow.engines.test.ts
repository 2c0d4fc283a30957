/**
 * `--follow` against a BAZINGA database that another process keeps writing, the way BAZINGA
 * does (WAL, one short transaction per command): a new session, a new task group, a criterion
 * met, new logs — each picked up by the follower on its own, no restart; a long write
 * transaction, a writer that locks readers out (rollback journal) and a file replaced under the
 * follower are all waited out; a restarted follower duplicates nothing. How fast a change arrives
 * is a measurement for `npm run bench`, not a claim these tests time.
 */
// flake-risks wait: a child holds the BAZINGA file's lock for a given time so the follower meets it; the follower retries until the lock goes, which is what is tested
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { describeEngines } from "@/test/support/engines";
import { copyFixture, importLedgers, ledgerFingerprint, ledgerNumber, removeTemps, sha256, tempDir } from "@/test/support/import-fixtures";
import type { ImportReport } from "../report";
import { followBazinga } from "./follow";

// A hang guard, not a claim about speed: on PostgreSQL the whole run takes about 25 s alone, more beside other suites.
vi.setConfig({ testTimeout: 120_000 });
afterAll(removeTemps);

const freshLedger = importLedgers();

/** Only stops a follower that never picks a change up; no claim about speed. */
const HANG_MS = 20_000;

/** A second process holding BAZINGA's database open and running the statements it is sent. */
class Writer {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = "";
  private waiting: ((line: string) => void)[] = [];

  constructor(file: string) {
    const script = path.join(path.dirname(file), "writer.cjs");
    fs.writeFileSync(
      script,
      `const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
const db = new Database(${JSON.stringify(file)});
db.pragma("busy_timeout = 5000");
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const job = JSON.parse(line);
  try {
    if (job.holdFor) {
      db.exec(job.exclusive ? "BEGIN EXCLUSIVE" : "BEGIN IMMEDIATE");
      db.prepare(job.sql[0]).run();
      process.stdout.write("locked\\n");
      sleep(job.holdFor);
      db.exec("COMMIT");
    } else if (job.close) {
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.close();
    } else {
      db.transaction(() => job.sql.forEach((sql, i) => db.prepare(sql).run(...(job.params?.[i] ?? []))))();
    }
    process.stdout.write("ok\\n");
  } catch (error) {
    process.stdout.write("error " + error.message + "\\n");
  }
});
`,
    );
    this.child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf("\n")) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        this.waiting.shift()?.(line);
      }
    });
  }

  private next(): Promise<string> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Run statements as one transaction; resolves once committed. */
  async run(sql: string[], params: unknown[][] = []): Promise<void> {
    const done = this.next();
    this.child.stdin.write(`${JSON.stringify({ sql, params })}\n`);
    expect(await done).toBe("ok");
  }

  /** Write one row in a transaction held open for `ms` (`exclusive`: readers locked out too); resolves once it holds the lock. */
  async hold(sql: string, ms: number, exclusive = false): Promise<Promise<string>> {
    const locked = this.next();
    const released = this.next();
    this.child.stdin.write(`${JSON.stringify({ sql: [sql], holdFor: ms, exclusive })}\n`);
    expect(await locked).toBe("locked");
    return released;
  }

  async close(): Promise<void> {
    const done = this.next();
    this.child.stdin.write(`${JSON.stringify({ close: true })}\n`);
    expect(await done).toBe("ok");
    this.child.stdin.end();
    await new Promise((resolve) => this.child.once("exit", resolve));
  }
}

/** Waits until `check` passes (the follower picked the change up), failing with its last assertion if it never does. */
async function arrives(check: () => void | Promise<void>): Promise<void> {
  await vi.waitFor(check, { timeout: HANG_MS, interval: 20 });
}

function startFollowing(db: Db, file: string) {
  const stop = new AbortController();
  const passes: ImportReport[] = [];
  const notices: string[] = [];
  const done = followBazinga(db, file, { signal: stop.signal, onPass: (r) => passes.push(r), onNotice: (m) => notices.push(m) });
  return { stop: () => (stop.abort(), done), passes, notices, done };
}

const S = "bazinga_20261121_150000_200";

describeEngines("following a BAZINGA database another process keeps writing", (engine) => {
  it("imports each change as it is committed, never holds up a long write, reopens a replaced file, and a restart duplicates nothing", async () => {
    const dir = tempDir();
    const source = copyFixture("bazinga-v19-sample.db", dir);
    const db = await freshLedger(engine);
    const writer = new Writer(source);
    const follower = startFollowing(db, source);
    const count = (sql: string, ...params: unknown[]) => ledgerNumber(db, sql, ...params);
    await arrives(() => expect(follower.passes).toHaveLength(1));
    const logs = await count("SELECT count(*) FROM orchestration_logs");

    await writer.run(["INSERT INTO sessions (session_id, mode, original_requirements, status) VALUES (?, 'parallel', 'Add SSO', 'active')"], [[S]]);
    await arrives(async () => expect(await count("SELECT count(*) FROM sessions WHERE id = ? AND source = 'bazinga'", S)).toBe(1));

    await writer.run(["INSERT INTO task_groups (id, session_id, name, status, assigned_to) VALUES ('A', ?, 'SSO login', 'in_progress', 'developer_1')"], [[S]]);
    await arrives(async () => expect(await count("SELECT count(*) FROM tasks WHERE session_id = ? AND key = 'A' AND status = 'in_progress'", S)).toBe(1));

    await writer.run(["INSERT INTO success_criteria (session_id, criterion) VALUES (?, 'SSO works with Okta')"], [[S]]);
    await arrives(async () => expect(await count("SELECT count(*) FROM success_criteria WHERE session_id = ?", S)).toBe(1));
    await writer.run(
      ["UPDATE success_criteria SET status = 'met', actual = 'login ok', evidence = 'e2e.log', updated_at = CURRENT_TIMESTAMP WHERE session_id = ?"],
      [[S]],
    );
    await arrives(async () =>
      expect(await count("SELECT count(*) FROM success_criteria WHERE session_id = ? AND status = 'met' AND evidence = 'e2e.log'", S)).toBe(1),
    );

    await writer.run(
      [
        "INSERT INTO orchestration_logs (session_id, agent_type, agent_id, content, iteration) VALUES (?, 'developer', 'developer_1', 'Wired the Okta client', 1)",
        "INSERT INTO orchestration_logs (session_id, agent_type, content, log_type, reasoning_phase, group_id) VALUES (?, 'developer', 'Using PKCE; client_secret=abc123def456', 'reasoning', 'approach', 'A')",
        "INSERT INTO token_usage (session_id, agent_type, tokens_estimated) VALUES (?, 'developer', 5400)",
      ],
      [[S], [S], [S]],
    );
    await arrives(async () =>
      expect([await count("SELECT count(*) FROM orchestration_logs"), await count("SELECT count(*) FROM token_usage WHERE session_id = ?", S)]).toEqual([
        logs + 2,
        1,
      ]),
    );
    expect(await count("SELECT count(*) FROM orchestration_logs WHERE content LIKE '%abc123def456%'")).toBe(0);

    // The group moves on, then BAZINGA's pm state (overwritten in place) changes.
    await writer.run(
      [
        "UPDATE task_groups SET status = 'approved_pending_merge', last_review_status = 'APPROVED', updated_at = CURRENT_TIMESTAMP WHERE session_id = ? AND id = 'A'",
      ],
      [[S]],
    );
    await arrives(async () =>
      expect(
        await count(
          "SELECT count(*) FROM tasks WHERE session_id = ? AND status = 'verified' AND source_status = 'approved_pending_merge' AND last_review_status = 'APPROVED'",
          S,
        ),
      ).toBe(1),
    );
    await writer.run([
      "UPDATE state_snapshots SET state_data = '{\"phase\":\"merge\"}', timestamp = CURRENT_TIMESTAMP WHERE session_id = 'bazinga_20250828_146740_110' AND state_type = 'orchestrator'",
    ]);
    await arrives(async () =>
      expect(await count("SELECT count(*) FROM state_snapshots WHERE session_id = 'bazinga_20250828_146740_110' AND state_type = 'orchestrator'")).toBe(2),
    );

    // A long write transaction: the follower neither waits for it nor holds it up, and imports the row once committed.
    // Counted before the write is sent: on a loaded machine this process may read the writer's
    // "locked" only after the commit, and a pass may import the row before that (it made the test flaky).
    const passesBefore = follower.passes.length;
    const committed = await writer.hold(
      "INSERT INTO orchestration_logs (session_id, agent_type, content) VALUES ('bazinga_20261121_150000_200', 'qa_expert', 'Tests: 30 passed')",
      1500,
    );
    expect(await committed).toBe("ok");
    // Both waited for: on PostgreSQL the row can be seen committed a moment before the follower has its answer and reports the pass.
    await arrives(async () => {
      expect(await count("SELECT count(*) FROM orchestration_logs WHERE content = 'Tests: 30 passed'")).toBe(1);
      expect(follower.passes.length).toBeGreaterThan(passesBefore);
    });

    // The file is replaced (e.g. restored from a backup) with one more session: reopened, imported.
    await writer.close();
    const replacement = path.join(dir, "replacement.db");
    const copy = new Database(source, { readonly: true });
    await copy.backup(replacement);
    copy.close();
    const next = new Database(replacement);
    next.prepare("INSERT INTO sessions (session_id, mode, status) VALUES ('bazinga_20261121_160000_201', 'simple', 'active')").run();
    next.close();
    fs.rmSync(`${source}-wal`, { force: true });
    fs.rmSync(`${source}-shm`, { force: true });
    fs.renameSync(replacement, source);
    await arrives(async () => expect(await count("SELECT count(*) FROM sessions WHERE id = 'bazinga_20261121_160000_201'")).toBe(1));
    expect(follower.notices).toContain(`${source} was replaced: reopened it`);

    const total = await follower.stop();
    expect(total.entities.find((e) => e.entity === "sessions")).toMatchObject({ imported: 8, skipped: 0 });

    // A restarted follower finds everything already in: nothing added, nothing changed.
    const before = await ledgerFingerprint(db);
    const bytes = sha256(source);
    const again = startFollowing(db, source);
    await arrives(() => expect(again.passes).toHaveLength(1));
    await again.stop();
    expect(again.passes[0]!.entities.every((e) => e.imported === 0 && e.updated === 0 && e.skipped === 0)).toBe(true);
    expect(await ledgerFingerprint(db)).toEqual(before);
    expect(sha256(source)).toBe(bytes);
  });
});

describeEngines("following after a long first import", (engine) => {
  it("picks a state change up at its next look, not after five times the first import (which read the whole history)", async () => {
    const dir = tempDir();
    const source = copyFixture("bazinga-v19-sample.db", dir);
    const db = await freshLedger(engine);
    const writer = new Writer(source);
    // The first import takes 6 s, as a large history does: the follower's clock moves on that much
    // during its progress, once, and stands still otherwise (so no later pass looks expensive).
    const FIRST_IMPORT_MS = 6_000;
    let clock = 0;
    const stop = new AbortController();
    const passes: ImportReport[] = [];
    const done = followBazinga(db, source, {
      signal: stop.signal,
      intervalMs: 20,
      clock: () => clock,
      onPass: (r) => passes.push(r),
      onProgress: () => {
        if (passes.length === 0 && clock === 0) clock = FIRST_IMPORT_MS;
      },
    });
    try {
      await arrives(() => expect(passes).toHaveLength(1));
      // A new BAZINGA session touches only the state tables: no append-only row names it. Before the
      // fix the follower held it back until its clock had moved 5 × the first import: here, forever.
      await writer.run(["INSERT INTO sessions (session_id, mode, status) VALUES ('bazinga_20261128_120000_300', 'simple', 'active')"]);
      await arrives(async () => expect(await ledgerNumber(db, "SELECT count(*) FROM sessions WHERE id = 'bazinga_20261128_120000_300'")).toBe(1));
    } finally {
      stop.abort();
      await done;
      await writer.close();
    }
  });
});

describeEngines("following a database whose writer locks readers out (rollback journal)", (engine) => {
  it("waits while the file is locked and imports the row once the lock is released", async () => {
    const dir = tempDir();
    const source = copyFixture("bazinga-v19-sample.db", dir);
    const setup = new Database(source);
    setup.pragma("journal_mode = DELETE");
    setup.close();
    const db = await freshLedger(engine);
    const writer = new Writer(source);
    const follower = startFollowing(db, source);
    await arrives(() => expect(follower.passes).toHaveLength(1));
    const released = await writer.hold(
      "INSERT INTO orchestration_logs (session_id, agent_type, content) VALUES ('bazinga_20250828_146740_110', 'tech_lead', 'APPROVED after lock')",
      2500,
      true,
    );
    expect(await released).toBe("ok");
    await arrives(async () => expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE content = 'APPROVED after lock'")).toBe(1));
    await writer.close();
    await follower.stop();
    expect(follower.notices.some((n) => n.includes("is not readable right now") && n.includes("locked"))).toBe(true);
  });
});
