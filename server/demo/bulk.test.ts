/**
 * The demo's bulk load leaves the analytics rollup triggers out while it writes and counts the
 * rollups once at the end (server/services/analytics/rollups.test.ts checks the figures against
 * the history). Here: which triggers it leaves out, that every one is back word for word and
 * counting again after the load, and that a load that fails leaves neither rows nor a missing trigger.
 */
import { describe, expect, it } from "vitest";
import { type Db, createMemoryDb } from "@/db/client";
import { loadWithRollupsRebuilt, rollupTriggerNames } from "./bulk";
import { generateDemoData } from "./generate";

const NOW = new Date("2026-11-21T12:00:00Z");

function triggers(db: Db): { name: string; sql: string }[] {
  return db.$client.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as { name: string; sql: string }[];
}

const count = (db: Db, table: string) => (db.$client.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;

describe("loadWithRollupsRebuilt", () => {
  it("leaves out the triggers that write the rollup tables, and only those", () => {
    const names = rollupTriggerNames();
    expect(names).toEqual(expect.arrayContaining(["task_transitions_rollup_claim", "completion_checks_rollup", "attempts_rollup", "token_usage_rollup"]));
    // The enforcement and `blocked_at` triggers keep firing during the load.
    for (const kept of ["sessions_identity_immutable", "tasks_blocked_at_insert", "task_transitions_blocked_at", "tasks_rules_update", "tasks_rollup_update"]) {
      expect(names).not.toContain(kept);
    }
  });

  it("puts every trigger back word for word, and they count rows written after the load", async () => {
    const db = createMemoryDb();
    const before = triggers(db);
    await generateDemoData(db, { sessions: 5, seed: 1, now: NOW, logsPerSession: 5 });
    expect(triggers(db)).toEqual(before);

    const tokens = () => db.$client.prepare("SELECT coalesce(sum(total), 0) AS t FROM analytics_rollups WHERE figure = 'tokens'").get() as { t: number };
    const counted = tokens().t;
    expect(counted).toBe((db.$client.prepare("SELECT sum(tokens_estimated) AS t FROM token_usage").get() as { t: number }).t);
    db.$client
      .prepare(
        "INSERT INTO token_usage (session_id, agent_type, agent_id, tokens_estimated, model, timestamp) VALUES (?, 'developer', 'developer_1', 1234, 'model-x', ?)",
      )
      .run("demo_1_00001", NOW.getTime());
    expect(tokens().t).toBe(counted + 1234);
  });

  it("rolls everything back when the load fails: no rows, every trigger still there", async () => {
    const db = createMemoryDb();
    const before = triggers(db);
    await expect(
      generateDemoData(db, {
        sessions: 6,
        seed: 1,
        now: NOW,
        logsPerSession: 5,
        onProgress: ({ phase, done }) => {
          if (phase === "generating" && done === 3) throw new Error("stopped half-way");
        },
      }),
    ).rejects.toThrow("stopped half-way");
    expect(triggers(db)).toEqual(before);
    for (const table of ["sessions", "tasks", "task_transitions", "events", "analytics_rollups"]) expect(count(db, table), table).toBe(0);
  });

  it("keeps the enforcement triggers during the load: a refused statement rolls the whole load back", async () => {
    const db = createMemoryDb();
    await generateDemoData(db, { sessions: 2, seed: 1, now: NOW, logsPerSession: 5 });
    const rollups = count(db, "analytics_rollups");
    expect(() =>
      loadWithRollupsRebuilt(db.$client, () => {
        db.$client.prepare("INSERT INTO token_usage (session_id, agent_type, tokens_estimated, timestamp) VALUES ('demo_1_00001', 'developer', 5, 0)").run();
        // Task history is append-only: the trigger refuses, and the insert above goes with it.
        db.$client.prepare("DELETE FROM task_transitions").run();
      }),
    ).toThrow();
    expect(count(db, "analytics_rollups")).toBe(rollups);
    expect((db.$client.prepare("SELECT count(*) AS n FROM token_usage WHERE tokens_estimated = 5").get() as { n: number }).n).toBe(0);
    expect(triggers(db).map((t) => t.name)).toEqual(expect.arrayContaining(rollupTriggerNames()));
  });
});
