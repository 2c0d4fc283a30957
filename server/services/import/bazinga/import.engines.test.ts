/**
 * Importing BAZINGA's v19 fixture into a ledger, on both engines (issue 21): every row per entity,
 * through the services, statuses mapped, secrets redacted, completion claims judged; a second
 * import and a later copy of the file; the refusals. The source is a SQLite file on both.
 */
// flake-risks time: any finished time will do: the row needs one, nothing compares it
import fs from "node:fs";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type Db, engineOf, writeTransaction } from "@/db/client";
import { ValidationError } from "@/server/domain/errors";
import { describeEngines } from "@/test/support/engines";
import { runLikeSqlite } from "@/test/support/rows";
import {
  copyFixture,
  importLedgers,
  ledgerFingerprint,
  ledgerNumber,
  ledgerRows,
  ledgerValues,
  removeTemps,
  sha256,
  sourceCount,
  tempDir,
  withSource,
} from "@/test/support/import-fixtures";
import type { ImportReport } from "../report";
import { SourceMissingError } from "../source";
import { importBazinga } from "./importer";

// Each test imports a whole database into a fresh ledger: seconds, more on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
afterAll(removeTemps);

const freshLedger = importLedgers();

const FIXTURE = "bazinga-v19-sample.db";
const entity = (report: ImportReport, name: string) => report.entities.find((e) => e.entity === name)!;
/** An event's `data.count`, as each engine reads a number out of the JSON text. */
const dataCount = (db: Db) => (engineOf(db) === "postgres" ? "(data::jsonb ->> 'count')::numeric" : "json_extract(data, '$.count')");

/** Criteria that exist only in a session's latest pm state: computed from the fixture itself. */
function pmOnlyCriteria(file: string): { sessionId: string; criterion: string; required: boolean }[] {
  return withSource(file, (db) => {
    const latest = db
      .prepare(
        `SELECT s.session_id, s.state_data FROM state_snapshots s WHERE s.state_type = 'pm' AND s.id = (SELECT id FROM state_snapshots t WHERE t.session_id = s.session_id AND t.state_type = 'pm' ORDER BY t.timestamp DESC, t.id DESC LIMIT 1)`,
      )
      .all() as { session_id: string; state_data: string }[];
    const inTable = new Set(db.prepare("SELECT session_id || '|' || criterion FROM success_criteria").pluck().all() as string[]);
    return latest.flatMap((s) =>
      ((JSON.parse(s.state_data) as { success_criteria?: { criterion: string; required_for_completion?: boolean }[] }).success_criteria ?? [])
        .filter((c) => !inTable.has(`${s.session_id}|${c.criterion}`))
        .map((c) => ({ sessionId: s.session_id, criterion: c.criterion, required: c.required_for_completion !== false })),
    );
  });
}

describeEngines("importing the BAZINGA v19 fixture", (engine) => {
  let source: string;
  let db: Db;
  let report: ImportReport;
  let bytesBefore: string;

  beforeAll(async () => {
    source = copyFixture(FIXTURE);
    bytesBefore = sha256(source);
    db = await freshLedger(engine);
    report = await importBazinga(db, source);
  });

  it("detects schema version 19 from schema_version, and says what it could not map", () => {
    expect(report.schema.version).toBe(`v${sourceCount(source, "SELECT max(version) FROM schema_version")}`);
    expect(report.schema.detectedFrom).toBe("schema_version, and the columns agree");
    // Everything is mapped now: the context-engineering tables (learning.engines.test.ts), speckit_task_ids in the task's metadata.
    expect(report.notMapped).toEqual([]);
  });

  it("imports every row the fixture has, per entity, and skips none", () => {
    const expected: [string, string][] = [
      ["sessions", "SELECT count(*) FROM sessions"],
      ["task groups", "SELECT count(*) FROM task_groups"],
      ["success criteria", "SELECT count(*) FROM success_criteria"],
      ["interactions", "SELECT count(*) FROM orchestration_logs WHERE log_type = 'interaction'"],
      ["reasoning", "SELECT count(*) FROM orchestration_logs WHERE log_type = 'reasoning'"],
      ["events", "SELECT count(*) FROM orchestration_logs WHERE log_type = 'event'"],
      ["completion claims", "SELECT count(*) FROM orchestration_logs WHERE event_subtype IN ('pm_bazinga', 'validator_verdict')"],
      ["token usage", "SELECT count(*) FROM token_usage"],
      ["state snapshots", "SELECT count(*) FROM state_snapshots"],
      ["skill outputs", "SELECT count(*) FROM skill_outputs"],
      ["context packages", "SELECT count(*) FROM context_packages"],
      ["context consumers", "SELECT count(*) FROM context_package_consumers"],
    ];
    for (const [name, sql] of expected) {
      const n = sourceCount(source, sql);
      expect(n, name).toBeGreaterThan(0);
      expect(entity(report, name), name).toMatchObject({ read: n, imported: n, updated: 0, unchanged: 0, skipped: 0 });
    }
    expect(entity(report, "migrated criteria")).toMatchObject({ imported: pmOnlyCriteria(source).length, skipped: 0 });
  });

  it("stores them in Proofgate's tables, with BAZINGA's session ids and source 'bazinga'", async () => {
    const ids = withSource(source, (s) => s.prepare("SELECT session_id FROM sessions ORDER BY session_id").pluck().all());
    expect(await ledgerValues(db, "SELECT id FROM sessions WHERE source = 'bazinga' AND enforcement = 'observe' ORDER BY id")).toEqual(ids);
    expect(await ledgerNumber(db, "SELECT count(*) FROM tasks")).toBe(sourceCount(source, "SELECT count(*) FROM task_groups"));
    expect(await ledgerNumber(db, "SELECT count(*) FROM success_criteria WHERE NOT migrated")).toBe(
      sourceCount(source, "SELECT count(*) FROM success_criteria"),
    );
    for (const type of ["interaction", "reasoning", "event"]) {
      expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE log_type = ?", type), type).toBe(
        sourceCount(source, "SELECT count(*) FROM orchestration_logs WHERE log_type = ?", type),
      );
    }
    expect(await ledgerNumber(db, "SELECT sum(tokens_estimated) FROM token_usage")).toBe(sourceCount(source, "SELECT sum(tokens_estimated) FROM token_usage"));
    for (const table of ["state_snapshots", "skill_outputs", "context_packages", "context_package_consumers"]) {
      expect(await ledgerNumber(db, `SELECT count(*) FROM ${table}`), table).toBe(sourceCount(source, `SELECT count(*) FROM ${table}`));
    }
    // Each reasoning row keeps its phase, confidence and group.
    const reasoning = withSource(source, (s) =>
      s
        .prepare("SELECT reasoning_phase || '/' || confidence_level || '/' || group_id FROM orchestration_logs WHERE log_type = 'reasoning' ORDER BY id")
        .pluck()
        .all(),
    );
    expect(
      await ledgerValues(
        db,
        "SELECT reasoning_phase || '/' || confidence_level || '/' || group_id FROM orchestration_logs WHERE log_type = 'reasoning' ORDER BY id",
      ),
    ).toEqual(reasoning);
  });

  it("writes every imported row through the services: each has its event", async () => {
    const logs = sourceCount(source, "SELECT count(*) FROM orchestration_logs");
    // Logs and tokens go in batches: one event per batch, counting its rows.
    expect(await ledgerNumber(db, `SELECT sum(${dataCount(db)}) FROM events WHERE type = 'logs.appended'`)).toBe(logs);
    expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE type = 'session.created'")).toBe(sourceCount(source, "SELECT count(*) FROM sessions"));
    expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE type = 'task.created'")).toBe(sourceCount(source, "SELECT count(*) FROM task_groups"));
    expect(await ledgerNumber(db, `SELECT sum(${dataCount(db)}) FROM events WHERE type = 'tokens.logged'`)).toBe(
      sourceCount(source, "SELECT count(*) FROM token_usage"),
    );
    // Each log row keeps the time BAZINGA wrote it.
    const times = withSource(source, (s) => s.prepare("SELECT timestamp FROM orchestration_logs ORDER BY id").pluck().all() as string[]);
    expect((await ledgerValues<number>(db, "SELECT timestamp FROM orchestration_logs ORDER BY id")).map((t) => new Date(t).toISOString())).toEqual(
      times.map((t) => `${t.replace(" ", "T")}.000Z`),
    );
    expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE actor = 'bazinga' AND principal_id = 'operator'")).toBe(
      await ledgerNumber(db, "SELECT count(*) FROM events"),
    );
  });

  it("maps every task-group status as DESIGN.md says, keeps BAZINGA's word, and records the history as transitions", async () => {
    const groups = withSource(
      source,
      (s) => s.prepare("SELECT session_id, id, status FROM task_groups").all() as { session_id: string; id: string; status: string }[],
    );
    expect(new Set(groups.map((g) => g.status))).toEqual(new Set(["pending", "in_progress", "approved_pending_merge", "merging", "failed"]));
    for (const g of groups) {
      const [task] = await ledgerRows<{ id: number; status: string; verification: string | null; source_status: string | null }>(
        db,
        "SELECT id, status, verification, source_status FROM tasks WHERE session_id = ? AND key = ?",
        g.session_id,
        g.id,
      );
      const expected = { approved_pending_merge: "verified", merging: "verified", failed: "blocked" }[g.status] ?? g.status;
      expect(task!.status, `${g.id} ${g.status}`).toBe(expected);
      // A verified or blocked status BAZINGA reported was never a verify or block move.
      expect(task!.verification).toBe(expected === "verified" || expected === "blocked" ? "none" : null);
      const moves = await ledgerValues(
        db,
        "SELECT move || ':' || coalesce(from_status, '') || '>' || to_status FROM task_transitions WHERE task_id = ? ORDER BY id",
        task!.id,
      );
      expect(moves).toEqual(g.status === "pending" ? ["create:>pending"] : ["create:>pending", `report:pending>${expected}`]);
      if (g.status !== "pending") expect(task!.source_status).toBe(g.status);
    }
  });

  it("migrates the criteria that exist only in a pm state snapshot, marked migrated, with an import history row", async () => {
    const expected = pmOnlyCriteria(source);
    expect(new Set(expected.map((c) => c.sessionId)).size).toBe(3);
    // The alias is quoted: PostgreSQL folds an unquoted one to lower case.
    const migrated = await ledgerRows<{ sessionId: string; criterion: string; required: number }>(
      db,
      'SELECT session_id AS "sessionId", criterion, required_for_completion AS required FROM success_criteria WHERE migrated ORDER BY id',
    );
    expect(migrated.map((c) => ({ ...c, required: c.required === 1 }))).toEqual(expected);
    expect(await ledgerNumber(db, "SELECT count(*) FROM criterion_updates WHERE kind = 'import'")).toBe(expected.length);
    // Criteria saved in BAZINGA's own table keep their status, actual and evidence.
    const table = withSource(source, (s) => s.prepare("SELECT session_id, criterion, status, actual, evidence FROM success_criteria ORDER BY id").all());
    expect(await ledgerRows(db, "SELECT session_id, criterion, status, actual, evidence FROM success_criteria WHERE NOT migrated ORDER BY id")).toEqual(table);
  });

  it("stores no secret BAZINGA left in its logs, and flags every row it redacted", async () => {
    const withSecrets = sourceCount(source, "SELECT count(*) FROM orchestration_logs WHERE content LIKE '%sk-%'");
    expect(withSecrets).toBeGreaterThan(0);
    expect(
      await ledgerNumber(
        db,
        "SELECT count(*) FROM orchestration_logs WHERE content LIKE '%sk-%' OR references_json LIKE '%sk-%' OR event_payload LIKE '%sk-%'",
      ),
    ).toBe(0);
    expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE redacted AND content LIKE '%[REDACTED:%'")).toBe(withSecrets);
  });

  it("records each pm_bazinga and validator_verdict as a completion claim, BAZINGA's verdict beside the gate's", async () => {
    const claims = withSource(
      source,
      (s) =>
        s
          .prepare(
            "SELECT session_id, event_subtype, event_payload FROM orchestration_logs WHERE event_subtype IN ('pm_bazinga', 'validator_verdict') ORDER BY id",
          )
          .all() as { session_id: string; event_subtype: string; event_payload: string }[],
    );
    const checks = await ledgerRows<{ session_id: string; source: string; claimed_verdict: string; accepted: number; reasons: string }>(
      db,
      "SELECT session_id, source, claimed_verdict, accepted, reasons FROM completion_checks WHERE source != 'gate' ORDER BY id",
    );
    expect(checks.map((c) => [c.session_id, c.source, c.claimed_verdict])).toEqual(
      claims.map((c) => [
        c.session_id,
        c.event_subtype,
        c.event_subtype === "validator_verdict" ? (JSON.parse(c.event_payload) as { verdict: string }).verdict : "BAZINGA",
      ]),
    );
    // BAZINGA's validator accepted every one; Proofgate's gate, looking at the same rows, accepted none.
    expect(checks.every((c) => c.accepted === 0 && (JSON.parse(c.reasons) as string[]).length > 0)).toBe(true);
  });

  it("completes the sessions BAZINGA completed, with the gate's verdict on record", async () => {
    const completed = withSource(source, (s) => s.prepare("SELECT session_id FROM sessions WHERE status = 'completed' ORDER BY session_id").pluck().all());
    expect(await ledgerValues(db, "SELECT id FROM sessions WHERE status = 'completed' AND ended_at IS NOT NULL ORDER BY id")).toEqual(completed);
    expect(await ledgerValues(db, "SELECT DISTINCT session_id FROM completion_checks WHERE source = 'gate' ORDER BY session_id")).toEqual(completed);
  });

  it("keeps BAZINGA's times (UTC) rather than the time of the import", async () => {
    const start = withSource(source, (s) => s.prepare("SELECT start_time FROM sessions ORDER BY session_id LIMIT 1").pluck().get() as string);
    const started = await ledgerNumber(db, "SELECT started_at FROM sessions ORDER BY id LIMIT 1");
    expect(new Date(started).toISOString()).toBe(`${start.replace(" ", "T")}.000Z`);
  });

  it("never writes to the source file", () => {
    expect(sha256(source)).toBe(bytesBefore);
  });

  it("adds nothing and changes nothing when the same file is imported again", async () => {
    const before = await ledgerFingerprint(db);
    const again = await importBazinga(db, source);
    expect(await ledgerFingerprint(db)).toEqual(before);
    for (const e of again.entities) expect(e, e.entity).toMatchObject({ imported: 0, updated: 0, skipped: 0, unchanged: e.read });
    expect(sha256(source)).toBe(bytesBefore);
  });
});

describeEngines("importing a later copy of the file", (engine) => {
  it("adds only what is new and applies what changed, as new history", async () => {
    const first = copyFixture(FIXTURE);
    const db = await freshLedger(engine);
    await importBazinga(db, first);
    const before = await ledgerFingerprint(db);
    const later = copyFixture(FIXTURE, tempDir());
    const session = "bazinga_20260101_120000_999";
    withSource(later, (s) => {
      s.prepare("INSERT INTO sessions (session_id, mode, original_requirements, status) VALUES (?, 'simple', 'Add an audit log', 'active')").run(session);
      s.prepare("INSERT INTO task_groups (id, session_id, name, status) VALUES ('A', ?, 'Audit log', 'in_progress')").run(session);
      s.prepare(
        "INSERT INTO orchestration_logs (session_id, agent_type, agent_id, content, iteration) VALUES (?, 'developer', 'developer_1', 'Started the audit log', 1)",
      ).run(session);
      s.prepare("INSERT INTO token_usage (session_id, agent_type, tokens_estimated) VALUES (?, 'developer', 1200)").run(session);
      // An existing group moves on; an existing criterion is now met; its session's pm state changes.
      s.prepare(
        "UPDATE task_groups SET status = 'completed', updated_at = '2026-11-21 12:00:00' WHERE session_id = 'bazinga_20250216_204458_114' AND id = 'A'",
      ).run();
      s.prepare(
        "UPDATE success_criteria SET status = 'met', actual = '12/12', updated_at = '2026-11-21 12:00:00' WHERE session_id = 'bazinga_20250622_192126_113' AND criterion = 'All tests passing'",
      ).run();
    });
    const report = await importBazinga(db, later);
    const after = await ledgerFingerprint(db);
    expect(entity(report, "sessions")).toMatchObject({ imported: 1, updated: 0, skipped: 0 });
    expect(entity(report, "task groups")).toMatchObject({ imported: 1, updated: 1, skipped: 0 });
    expect(entity(report, "success criteria")).toMatchObject({ imported: 0, updated: 1, skipped: 0 });
    expect(entity(report, "interactions")).toMatchObject({ imported: 1, skipped: 0 });
    expect(entity(report, "token usage")).toMatchObject({ imported: 1, skipped: 0 });
    expect(entity(report, "reasoning")).toMatchObject({ imported: 0 });
    expect(after.sessions!.rows - before.sessions!.rows).toBe(1);
    expect(after.tasks!.rows - before.tasks!.rows).toBe(1);
    expect(after.orchestration_logs!.rows - before.orchestration_logs!.rows).toBe(1);
    expect(after.token_usage!.rows - before.token_usage!.rows).toBe(1);
    expect(after.success_criteria!.rows).toBe(before.success_criteria!.rows);
    // The completed group: one more transition, an unverified completion, flagged in the rollup.
    const [task] = await ledgerRows<{ id: number }>(
      db,
      "SELECT id, status, verification, source_status FROM tasks WHERE session_id = 'bazinga_20250216_204458_114' AND key = 'A'",
    );
    expect(task).toMatchObject({ status: "completed", verification: "none", source_status: "completed" });
    expect(
      await ledgerValues(
        db,
        "SELECT move || ':' || coalesce(from_status, '') || '>' || to_status FROM task_transitions WHERE task_id = ? ORDER BY id",
        task!.id,
      ),
    ).toEqual(["create:>pending", "report:pending>in_progress", "report:in_progress>completed"]);
    expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE type = 'unverified_completion' AND entity_id = ?", String(task!.id))).toBe(1);
    expect(await ledgerNumber(db, "SELECT tasks_unverified FROM sessions WHERE id = 'bazinga_20250216_204458_114'")).toBe(1);
    const [criterion] = await ledgerRows<{ id: number }>(
      db,
      "SELECT id, status, actual FROM success_criteria WHERE session_id = 'bazinga_20250622_192126_113' AND criterion = 'All tests passing'",
    );
    expect(criterion).toMatchObject({ status: "met", actual: "12/12" });
    expect(
      await ledgerValues(
        db,
        "SELECT kind || ':' || coalesce(from_status, '') || '>' || to_status FROM criterion_updates WHERE criterion_id = ? ORDER BY id",
        criterion!.id,
      ),
    ).toEqual(["create:>failed", "claim:failed>met"]);
    // Importing the later copy again changes nothing.
    const settled = await ledgerFingerprint(db);
    await importBazinga(db, later);
    expect(await ledgerFingerprint(db)).toEqual(settled);
  });
});

describeEngines("refusals", (engine) => {
  it("names a missing file (not found) and a file that is not BAZINGA's (bad input), and writes nothing", async () => {
    const dir = tempDir();
    const db = await freshLedger(engine);
    const before = await ledgerFingerprint(db);
    await expect(importBazinga(db, `${dir}/nope.db`)).rejects.toThrow(SourceMissingError);
    fs.writeFileSync(`${dir}/notes.txt`, "not a database at all, just some text that is long enough to be a header of a file");
    await expect(importBazinga(db, `${dir}/notes.txt`)).rejects.toThrow(/notes\.txt is not a BAZINGA database: it is not an SQLite database at all/);
    const sog = copyFixture("shots-on-goal-v2-sample.db", dir);
    await expect(importBazinga(db, sog)).rejects.toThrow(ValidationError);
    await expect(importBazinga(db, sog)).rejects.toThrow(/is not a BAZINGA database: .*use `proofgate import shots-on-goal`/);
    expect(await ledgerFingerprint(db)).toEqual(before);
  });

  it("leaves alone a session Proofgate already has from elsewhere, and everything in it", async () => {
    const source = copyFixture(FIXTURE);
    const db = await freshLedger(engine);
    const taken = "bazinga_20250828_146740_110";
    await runLikeSqlite(db, "INSERT INTO sessions (id, source) VALUES (?, 'api')", taken);
    const report = await importBazinga(db, source);
    expect(entity(report, "sessions").skips).toEqual([
      { key: taken, reason: "a session with this id already exists in Proofgate and was not imported from BAZINGA" },
    ]);
    const groups = sourceCount(source, "SELECT count(*) FROM task_groups WHERE session_id = ?", taken);
    expect(entity(report, "task groups").skipped).toBe(groups);
    expect(entity(report, "task groups").skips[0]!.reason).toBe(
      `its session ${taken} was not imported (a session with this id already exists in Proofgate and was not imported from BAZINGA)`,
    );
    expect(await ledgerNumber(db, "SELECT count(*) FROM tasks WHERE session_id = ?", taken)).toBe(0);
    expect(await ledgerValues(db, "SELECT source FROM sessions WHERE id = ?", taken)).toEqual(["api"]);
  });

  it("does not bring back a session a retention purge deleted", async () => {
    const source = copyFixture(FIXTURE);
    const db = await freshLedger(engine);
    await importBazinga(db, source);
    const purged = "bazinga_20250203_054718_112";
    // The purge as `proofgate purge` records it: one transaction, its record open while the rows go.
    await writeTransaction(db, async () => {
      const purge = await ledgerNumber(db, "INSERT INTO purges (actor, reason) VALUES ('admin', 'retention') RETURNING id");
      await runLikeSqlite(db, "DELETE FROM sessions WHERE id = ?", purged);
      await runLikeSqlite(db, "UPDATE purges SET finished_at = ?, sessions_deleted = 1 WHERE id = ?", Date.now(), purge);
    });
    const before = await ledgerFingerprint(db);
    const report = await importBazinga(db, source);
    expect(entity(report, "sessions").skips).toEqual([
      { key: purged, reason: "it was imported before and has since been purged from Proofgate: it is not brought back" },
    ]);
    expect(entity(report, "task groups")).toMatchObject({
      imported: 0,
      skipped: sourceCount(source, "SELECT count(*) FROM task_groups WHERE session_id = ?", purged),
    });
    expect(await ledgerFingerprint(db)).toEqual(before);
  });
});
