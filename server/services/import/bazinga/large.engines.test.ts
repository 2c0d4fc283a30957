/**
 * A large BAZINGA history is imported in bounded memory: the append-only tables are streamed a
 * chunk at a time, a re-import starts after the high-water marks the last import recorded, and
 * progress is reported per source table as rows are done.
 */
import { afterAll, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { describeEngines } from "@/test/support/engines";
import { copyFixture, importLedgers, ledgerNumber, ledgerRows, removeTemps, withSource } from "@/test/support/import-fixtures";
import type { ProgressUpdate } from "../../progress";
import type { ImportReport } from "../report";
import { importShotsOnGoal } from "../shots-on-goal/importer";
import { BazingaImporter, importBazinga } from "./importer";

vi.setConfig({ testTimeout: 60_000 });
afterAll(removeTemps);

const freshLedger = importLedgers();

const entity = (report: ImportReport, name: string) => report.entities.find((e) => e.entity === name)!;
const written = (report: ImportReport) => report.entities.reduce((n, e) => n + e.imported + e.updated, 0);

/** What an import leaves in the ledger, apart from row ids of the events table (a batch boundary is one more `logs.appended`). */
async function ledgerContents(db: Db) {
  const all = (sql: string) => ledgerRows(db, sql);
  return {
    sessions: await all("SELECT id, status, source, enforcement, started_at, ended_at FROM sessions ORDER BY id"),
    logs: await all(
      "SELECT id, session_id, timestamp, iteration, agent_type, agent_id, content, log_type, reasoning_phase, group_id, event_subtype, event_payload, redacted FROM orchestration_logs ORDER BY id",
    ),
    tokens: await all("SELECT session_id, timestamp, agent_type, agent_id, tokens_estimated FROM token_usage ORDER BY id"),
    claims: await all("SELECT * FROM completion_checks ORDER BY id"),
    tasks: await all("SELECT session_id, key, status, source_status FROM tasks ORDER BY session_id, key"),
    criteria: await all("SELECT session_id, criterion, status, actual, evidence FROM success_criteria ORDER BY session_id, criterion"),
    records: await all("SELECT entity, source_key, target_id FROM import_records WHERE entity != 'high_water_mark' ORDER BY entity, source_key"),
    eventTypes: await all("SELECT type, count(*) AS n FROM events WHERE type != 'logs.appended' AND type != 'tokens.logged' GROUP BY type ORDER BY type"),
  };
}

describeEngines("a BAZINGA import streamed in chunks", (engine) => {
  it("imports the same rows whether a session's logs arrive in one chunk or are split across many", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const whole = await freshLedger(engine);
    const wholeReport = await importBazinga(whole, source);
    const split = await freshLedger(engine);
    // Four rows per chunk: every session's logs and tokens are split across chunks.
    const splitReport = await importBazinga(split, source, { chunkRows: 4 });
    expect(splitReport.entities).toEqual(wholeReport.entities);
    expect(entity(splitReport, "interactions").imported).toBeGreaterThan(4);
    expect(await ledgerContents(split)).toEqual(await ledgerContents(whole));
  });

  it("imports a session BAZINGA created after the import read its sessions, before that session's logs", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const db = await freshLedger(engine);
    await importBazinga(db, source);
    // A new session and its logs, as BAZINGA writes them while an import runs.
    withSource(source, (s) => {
      s.prepare("INSERT INTO sessions (session_id, mode, original_requirements, status) VALUES ('bazinga_late', 'simple', 'late work', 'active')").run();
      const log = s.prepare(
        "INSERT INTO orchestration_logs (session_id, agent_type, content, log_type) VALUES ('bazinga_late', 'developer', ?, 'interaction')",
      );
      for (let i = 0; i < 6; i++) log.run(`late row ${i}`);
    });
    const report = await importBazinga(db, source, { chunkRows: 4 });
    expect(entity(report, "sessions")).toMatchObject({ imported: 1, skipped: 0 });
    expect(entity(report, "interactions")).toMatchObject({ read: 6, imported: 6, skipped: 0 });
    expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE session_id = 'bazinga_late'")).toBe(6);
  });
});

describeEngines("importing the same file again", (engine) => {
  it("starts after the recorded high-water marks: nothing is read again, and only rows added since are imported", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const db = await freshLedger(engine);
    const first = await importBazinga(db, source);
    const logs = entity(first, "interactions").read + entity(first, "reasoning").read + entity(first, "events").read;
    expect(logs).toBe(49);

    const again = await importBazinga(db, source);
    expect(written(again)).toBe(0);
    // The logs and token rows already in are not read again (their records are not consulted one by one).
    for (const name of ["interactions", "reasoning", "events", "token usage"]) expect(entity(again, name).read, name).toBe(0);
    expect(entity(again, "sessions").unchanged).toBe(entity(first, "sessions").imported);

    const session = withSource(source, (s) => {
      const id = s.prepare("SELECT session_id FROM sessions ORDER BY session_id LIMIT 1").pluck().get() as string;
      s.prepare("INSERT INTO orchestration_logs (session_id, agent_type, content, log_type) VALUES (?, 'developer', 'one more row', 'interaction')").run(id);
      s.prepare("INSERT INTO token_usage (session_id, agent_type, tokens_estimated) VALUES (?, 'developer', 1234)").run(id);
      return id;
    });
    const third = await importBazinga(db, source);
    expect(entity(third, "interactions")).toMatchObject({ read: 1, imported: 1 });
    expect(entity(third, "token usage")).toMatchObject({ read: 1, imported: 1 });
    expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE session_id = ? AND content = 'one more row'", session)).toBe(1);
  });

  it("reads a replaced file whose ids started over from the start, and duplicates nothing", async () => {
    const dir = copyFixture("bazinga-v19-sample.db");
    const db = await freshLedger(engine);
    await importBazinga(db, dir);
    const before = await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs");
    // Another file at the same path: the row at the recorded mark is not the one recorded.
    withSource(dir, (s) => {
      s.prepare("UPDATE orchestration_logs SET timestamp = '2031-01-01 00:00:00' WHERE id = (SELECT max(id) FROM orchestration_logs)").run();
    });
    const again = await importBazinga(db, dir);
    expect(entity(again, "interactions").read + entity(again, "reasoning").read + entity(again, "events").read).toBe(49);
    expect(written(again)).toBe(0);
    expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs")).toBe(before);
  });

  it("does not record a mark past a skipped row: the next import reads it again and says why it is skipped", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    withSource(source, (s) => {
      const id = s.prepare("SELECT session_id FROM sessions ORDER BY session_id LIMIT 1").pluck().get() as string;
      // A reasoning row without a phase (the column allows NULL; Proofgate's log service refuses it), in the middle of a chunk.
      s.prepare("INSERT INTO orchestration_logs (session_id, agent_type, content, log_type) VALUES (?, 'developer', 'no phase', 'reasoning')").run(id);
      s.prepare("INSERT INTO orchestration_logs (session_id, agent_type, content, log_type) VALUES (?, 'developer', 'after it', 'interaction')").run(id);
    });
    const db = await freshLedger(engine);
    const first = await importBazinga(db, source, { chunkRows: 4 });
    expect(entity(first, "reasoning").skipped).toBe(1);
    expect(entity(first, "reasoning").skips[0]!.reason).toMatch(/phase/);
    // The rows around it in its chunk are in, the refused one alone rolled back.
    expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE content = 'after it'")).toBe(1);
    expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE content = 'no phase'")).toBe(0);
    const again = await importBazinga(db, source, { chunkRows: 4 });
    expect(entity(again, "reasoning")).toMatchObject({ skipped: 1 });
    expect(written(again)).toBe(0);
  });
});

describeEngines("a follower's passes between its passes over the state tables", (engine) => {
  it("drain the append-only tables alone only when that imports what a whole pass would", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const db = await freshLedger(engine);
    const importer = new BazingaImporter(db, source);
    importer.open();
    await importer.sync();
    const [known, group] = withSource(source, (s) => {
      const row = s.prepare("SELECT session_id, id FROM task_groups WHERE status != 'failed' ORDER BY session_id, id LIMIT 1").get() as {
        session_id: string;
        id: string;
      };
      return [row.session_id, row.id];
    });
    const count = (sql: string, ...params: unknown[]) => ledgerNumber(db, sql, ...params);
    try {
      // New logs of an imported session, and a task group change: the append-only pass brings the logs only.
      withSource(source, (s) => {
        s.prepare("INSERT INTO orchestration_logs (session_id, agent_type, content, log_type) VALUES (?, 'developer', 'appended', 'interaction')").run(known);
        s.prepare("UPDATE task_groups SET status = 'failed', updated_at = '2030-01-01 00:00:00' WHERE session_id = ? AND id = ?").run(known, group);
      });
      expect(await importer.appendOnlyIsEnough()).toBe(true);
      const appendOnly = await importer.sync({ appendOnly: true });
      expect(appendOnly.entity("interactions")).toMatchObject({ read: 1, imported: 1 });
      expect(appendOnly.entity("task groups").read).toBe(0);
      expect(await count("SELECT count(*) FROM orchestration_logs WHERE content = 'appended'")).toBe(1);
      expect(await count("SELECT count(*) FROM tasks WHERE session_id = ? AND key = ? AND source_status = 'failed'", known, group)).toBe(0);
      // The next whole pass brings the state change, and reads no log twice.
      const whole = await importer.sync();
      expect(whole.entity("task groups").updated).toBe(1);
      expect(whole.entity("interactions").read).toBe(0);
      expect(await count("SELECT count(*) FROM tasks WHERE session_id = ? AND key = ? AND source_status = 'failed'", known, group)).toBe(1);

      // A row of a session not imported yet needs the state tables first.
      withSource(source, (s) => {
        s.prepare("INSERT INTO sessions (session_id, mode, status) VALUES ('bazinga_new', 'simple', 'active')").run();
        s.prepare("INSERT INTO orchestration_logs (session_id, agent_type, content, log_type) VALUES ('bazinga_new', 'developer', 'x', 'interaction')").run();
      });
      expect(await importer.appendOnlyIsEnough()).toBe(false);
      await importer.sync();
      expect(await importer.appendOnlyIsEnough()).toBe(true);
      // So does a completion claim: it judges the session's tasks and criteria as they stand.
      withSource(source, (s) => {
        s.prepare(
          "INSERT INTO orchestration_logs (session_id, agent_type, content, log_type, event_subtype, event_payload, group_id, idempotency_key) VALUES (?, 'project_manager', 'Event: pm_bazinga', 'event', 'pm_bazinga', '{}', 'global', 'k1')",
        ).run(known);
      });
      expect(await importer.appendOnlyIsEnough()).toBe(false);
    } finally {
      importer.close();
    }
  });
});

describeEngines("progress of an import", (engine) => {
  const phases = (updates: ProgressUpdate[]) => {
    const byPhase = new Map<string, ProgressUpdate[]>();
    for (const u of updates) byPhase.set(u.phase, [...(byPhase.get(u.phase) ?? []), u]);
    return byPhase;
  };
  const expectCountsUpToTotal = (list: ProgressUpdate[], phase: string) => {
    expect(
      list.every((u) => u.unit === "rows"),
      phase,
    ).toBe(true);
    const done = list.map((u) => u.done);
    expect(done, phase).toEqual([...done].sort((a, b) => a - b));
    const last = list.at(-1)!;
    expect(last.done, phase).toBe(last.total);
  };

  it("reports each BAZINGA table as its rows are done, counts rising to the table's total", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const db = await freshLedger(engine);
    const updates: ProgressUpdate[] = [];
    await importBazinga(db, source, { chunkRows: 10, onProgress: (u) => updates.push({ ...u }) });
    const byPhase = phases(updates);
    for (const [phase, list] of byPhase) expectCountsUpToTotal(list, phase);
    expect(byPhase.get("orchestration_logs")!.at(-1)).toMatchObject({ done: 49, total: 49 });
    // Several reports on the way, one per chunk.
    expect(byPhase.get("orchestration_logs")!.map((u) => u.done)).toEqual([0, 10, 20, 30, 40, 49]);
    expect(byPhase.get("token_usage")!.at(-1)).toMatchObject({ done: 23, total: 23 });
    const sessions = await ledgerNumber(db, "SELECT count(*) FROM sessions");
    expect(byPhase.get("sessions")!.at(-1)).toMatchObject({ done: sessions, total: sessions });
    expect(byPhase.get("task_groups")!.at(-1)!.total).toBeGreaterThan(0);
  });

  it("reports each shots-on-goal table as its rows are done, counts rising to the table's total", async () => {
    for (const fixture of ["shots-on-goal-v2-sample.db", "shots-on-goal-v1-sample.db"]) {
      const db = await freshLedger(engine);
      const updates: ProgressUpdate[] = [];
      await importShotsOnGoal(db, copyFixture(fixture), { onProgress: (u) => updates.push({ ...u }) });
      const byPhase = phases(updates);
      expect(byPhase.size, fixture).toBeGreaterThan(2);
      for (const [phase, list] of byPhase) expectCountsUpToTotal(list, `${fixture} ${phase}`);
      const goals = await ledgerNumber(db, "SELECT count(*) FROM goals");
      expect(byPhase.get(fixture.includes("v2") ? "goal" : "goals")!.at(-1), fixture).toMatchObject({ done: goals, total: goals });
    }
  });
});
