/**
 * BAZINGA v19's context-engineering tables (error_patterns, strategies, consumption_scope) come
 * across whole: the rows BAZINGA's own CLI writes (inserted here as its save-error-pattern,
 * save-strategy and save-consumption write them) are imported with their hashes and ids, their
 * secrets redacted, read back with the query BAZINGA's context assembler runs, and brought up to
 * date by a later sync (what `--follow` runs on every change).
 */
import { afterAll, expect, it, vi } from "vitest";
import { describeEngines } from "@/test/support/engines";
import { copyFixture, importLedgers, ledgerNumber, ledgerRows, removeTemps, withSource } from "@/test/support/import-fixtures";
import type { ImportReport } from "../report";
import { importBazinga } from "./importer";

vi.setConfig({ testTimeout: 60_000 });
afterAll(removeTemps);

const freshLedger = importLedgers();

const entity = (report: ImportReport, name: string) => report.entities.find((e) => e.entity === name)!;
const HASH = "dcdbe40fd7892417956de3c4b3e694d589a5e150457622d09b86c2457d717fce";
const SECRET = "sk-abcdefghijklmnopqrstuvwxyz012345";

describeEngines("importing BAZINGA's context-engineering tables", (engine) => {
  it("imports error patterns, strategies and consumption, redacted, readable as BAZINGA reads them, and follows their changes", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const { sessionId, packageId } = withSource(source, (db) => {
      const pkg = db.prepare("SELECT id, session_id FROM context_packages ORDER BY id LIMIT 1").get() as { id: number; session_id: string };
      db.prepare(
        `INSERT INTO error_patterns (pattern_hash, project_id, signature_json, solution, confidence, occurrences, lang, last_seen, created_at, ttl_days)
         VALUES (?, 'calc', ?, ?, 0.8, 2, 'python', '2026-01-10 10:00:00', '2026-01-09 09:00:00', 90)`,
      ).run(
        HASH,
        JSON.stringify({ error_type: "test", message_pattern: `AssertionError (key ${SECRET})`, context_hints: ["math"], stack_pattern: [] }),
        "Fixed off-by-one",
      );
      db.prepare(
        "INSERT INTO strategies (strategy_id, project_id, topic, insight, helpfulness, lang, framework, last_seen, created_at) VALUES ('strat_tdd', 'calc', 'implementation', 'Write the failing test first', 3, 'python', 'pytest', '2026-01-10 10:00:00', '2026-01-09 09:00:00')",
      ).run();
      db.prepare(
        "INSERT INTO consumption_scope (scope_id, session_id, group_id, agent_type, iteration, package_id, consumed_at) VALUES ('scope_1', ?, 'A', 'developer', 1, ?, '2026-01-10 10:05:00')",
      ).run(pkg.session_id, pkg.id);
      return { sessionId: pkg.session_id, packageId: pkg.id };
    });

    const db = await freshLedger(engine);
    const report = await importBazinga(db, source);
    for (const name of ["error patterns", "strategies", "consumption scope"])
      expect(entity(report, name), name).toMatchObject({ read: 1, imported: 1, skipped: 0 });
    expect(report.notMapped.filter((n) => /error_patterns|strategies|consumption_scope/.test(n))).toEqual([]);

    const assembler = await ledgerRows<{ signature_json: string }>(
      db,
      "SELECT signature_json, solution, confidence, occurrences FROM error_patterns WHERE project_id = 'calc' AND confidence > 0.7 ORDER BY confidence DESC, occurrences DESC LIMIT 3",
    );
    expect(assembler).toEqual([{ signature_json: expect.stringContaining("[REDACTED"), solution: "Fixed off-by-one", confidence: 0.8, occurrences: 2 }]);
    expect(assembler[0]!.signature_json).not.toContain(SECRET);
    expect(await ledgerRows(db, "SELECT pattern_hash, lang, ttl_days, redacted FROM error_patterns")).toEqual([
      { pattern_hash: HASH, lang: "python", ttl_days: 90, redacted: 1 },
    ]);
    expect(await ledgerRows(db, "SELECT strategy_id, topic, insight, helpfulness FROM strategies")).toEqual([
      { strategy_id: "strat_tdd", topic: "implementation", insight: "Write the failing test first", helpfulness: 3 },
    ]);
    const ledgerPackage = await ledgerNumber(
      db,
      "SELECT target_id FROM import_records WHERE entity = 'context_package' AND source_key = ?",
      `${sessionId}|${packageId}`,
    );
    expect(await ledgerRows(db, "SELECT session_id, group_id, agent_type, iteration, package_id FROM consumption_scope")).toEqual([
      { session_id: sessionId, group_id: "A", agent_type: "developer", iteration: 1, package_id: ledgerPackage },
    ]);

    // BAZINGA sees the pattern again and a strategy helps once more: the next sync updates both.
    withSource(source, (src) => {
      src.prepare("UPDATE error_patterns SET occurrences = 3, last_seen = '2026-01-11 10:00:00'").run();
      src.prepare("UPDATE strategies SET helpfulness = 4").run();
    });
    const again = await importBazinga(db, source);
    expect(entity(again, "error patterns")).toMatchObject({ updated: 1, skipped: 0 });
    expect(entity(again, "strategies")).toMatchObject({ updated: 1, skipped: 0 });
    expect(entity(again, "consumption scope")).toMatchObject({ unchanged: 1, skipped: 0 });
    expect(await ledgerNumber(db, "SELECT occurrences FROM error_patterns")).toBe(3);
    expect(await ledgerNumber(db, "SELECT helpfulness FROM strategies")).toBe(4);
  });
});
