/**
 * Nothing BAZINGA stored is dropped for a rule Proofgate adds: the states its own code can produce
 * that the importer used to skip are imported, and a skip that remains names its reason and rows.
 */
import { afterAll, expect, it, vi } from "vitest";
import { describeEngines } from "@/test/support/engines";
import { copyFixture, importLedgers, ledgerRows, ledgerValues, removeTemps, withSource } from "@/test/support/import-fixtures";
import type { ImportReport } from "../report";
import { importBazinga } from "./importer";

vi.setConfig({ testTimeout: 60_000 });
afterAll(removeTemps);

const freshLedger = importLedgers();

const entity = (report: ImportReport, name: string) => report.entities.find((e) => e.entity === name)!;
const skipped = (report: ImportReport) => report.entities.reduce((n, e) => n + e.skipped, 0);

describeEngines("a lossless BAZINGA import", (engine) => {
  it("reads 0 skipped on the v19 fixture", async () => {
    const db = await freshLedger(engine);
    expect(skipped(await importBazinga(db, copyFixture("bazinga-v19-sample.db")))).toBe(0);
  });

  it("keeps context packages without a first-iteration reader, and readers added for later iterations, consumed or waiting", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const sessionId = withSource(source, (db) => {
      const s = db.prepare("SELECT session_id FROM sessions ORDER BY session_id LIMIT 1").pluck().get() as string;
      const add = (file: string) =>
        db
          .prepare(
            "INSERT INTO context_packages (session_id, group_id, package_type, file_path, producer_agent, priority, summary) VALUES (?, 'A', 'research', ?, 'requirements_engineer', 'high', 'notes')",
          )
          .run(s, file).lastInsertRowid;
      // save-context-package … '[]' (bazinga_db.py accepts an empty reader list).
      add("ctx/no-readers.md");
      const later = add("ctx/later-readers.md");
      db.prepare(
        "INSERT INTO context_package_consumers (package_id, agent_type, iteration, consumed_at) VALUES (?, 'qa_expert', 2, '2026-01-10 10:00:00')",
      ).run(later);
      db.prepare("INSERT INTO context_package_consumers (package_id, agent_type, iteration) VALUES (?, 'tech_lead', 3)").run(later);
      return s;
    });
    const db = await freshLedger(engine);
    const report = await importBazinga(db, source);
    expect(entity(report, "context packages")).toMatchObject({ skipped: 0, skips: [] });
    expect(entity(report, "context consumers")).toMatchObject({ skipped: 0, skips: [] });
    expect(skipped(report)).toBe(0);
    expect(await ledgerValues(db, "SELECT file_path FROM context_packages WHERE session_id = ? AND file_path LIKE 'ctx/%' ORDER BY id", sessionId)).toEqual([
      "ctx/no-readers.md",
      "ctx/later-readers.md",
    ]);
    expect(
      await ledgerRows(
        db,
        "SELECT c.agent_type, c.iteration, c.consumed_at IS NOT NULL AS consumed FROM context_package_consumers c JOIN context_packages p ON p.id = c.package_id WHERE p.file_path LIKE 'ctx/%' ORDER BY c.iteration",
      ),
    ).toEqual([
      { agent_type: "qa_expert", iteration: 2, consumed: 1 },
      { agent_type: "tech_lead", iteration: 3, consumed: 0 },
    ]);
    // Importing again finds everything in place.
    const again = await importBazinga(db, source);
    expect(entity(again, "context consumers")).toMatchObject({ imported: 0, updated: 0, skipped: 0 });
  });

  it("keeps words outside Proofgate's columns: review and merge statuses in metadata, an unknown group status as its source status", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const groups = withSource(source, (db) => {
      const [a, b] = db.prepare("SELECT session_id, id FROM task_groups ORDER BY session_id, id LIMIT 2").all() as { session_id: string; id: string }[];
      // bazinga_db.py's update-task-group stores any --last_review_status word, and speckit_task_ids.
      db.prepare(
        "UPDATE task_groups SET last_review_status = 'NEEDS_WORK', merge_status = 'rebasing', speckit_task_ids = '[\"T001\"]' WHERE session_id = ? AND id = ?",
      ).run(a!.session_id, a!.id);
      // Not a state BAZINGA's CHECK allows, but a hand-edited file can hold one: kept, not skipped.
      db.pragma("ignore_check_constraints = ON");
      db.prepare("UPDATE task_groups SET status = 'on_hold' WHERE session_id = ? AND id = ?").run(b!.session_id, b!.id);
      return [a!, b!];
    });
    const db = await freshLedger(engine);
    const report = await importBazinga(db, source);
    expect(entity(report, "task groups")).toMatchObject({ skipped: 0, skips: [] });
    expect(report.notMapped).toEqual([]);
    const task = async (g: { session_id: string; id: string }) =>
      (
        await ledgerRows(
          db,
          "SELECT status, source_status, merge_status, last_review_status, metadata FROM tasks WHERE session_id = ? AND key = ?",
          g.session_id,
          g.id,
        )
      )[0];
    expect(await task(groups[0]!)).toMatchObject({
      merge_status: null,
      last_review_status: null,
      metadata: '{"merge_status":"rebasing","last_review_status":"NEEDS_WORK","speckit_task_ids":["T001"]}',
    });
    expect(await task(groups[1]!)).toMatchObject({ status: "pending", source_status: "on_hold" });
  });

  it("reports, with its reason and row, a reader whose package BAZINGA no longer has", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    withSource(source, (db) => {
      db.pragma("foreign_keys = OFF");
      db.prepare(
        "INSERT INTO context_package_consumers (package_id, agent_type, iteration, consumed_at) VALUES (9999, 'developer', 1, '2026-01-10 10:00:00')",
      ).run();
    });
    const db = await freshLedger(engine);
    const report = await importBazinga(db, source);
    expect(entity(report, "context consumers").skips).toEqual([
      {
        key: "|9999|developer|1",
        reason: "its context package 9999 is not in the BAZINGA database (an orphaned row): Proofgate keeps a reader only with its package",
      },
    ]);
  });
});
