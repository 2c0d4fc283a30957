/**
 * A BAZINGA database imported with `proofgate import bazinga` shows in the dashboard like any other
 * data: its tasks (legacy completions marked unverified), its criteria (those recovered from a pm
 * state snapshot marked migrated), its logs, and the unverified completions in analytics.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { E2E_DB } from "../playwright.config";
import { proofgate } from "./cli-helpers";
import { expect, test } from "./fixtures";

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "server", "services", "import", "fixtures", "bazinga-v19-sample.db");

/**
 * A copy of the BAZINGA sample in which BAZINGA has since marked one more task group completed (as
 * its orchestrator does: the status updated in place, no verification record), imported into the
 * server's ledger. Importing the same copy again (the phone project, a re-run) adds nothing.
 */
async function importBazinga(): Promise<{ sessionId: string; groupId: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-e2e-bazinga-"));
  const copy = path.join(dir, "bazinga.db");
  fs.copyFileSync(FIXTURE, copy);
  const source = new Database(copy);
  const group = source.prepare("SELECT id, session_id AS sessionId FROM task_groups WHERE status = 'in_progress' ORDER BY session_id, id LIMIT 1").get() as {
    id: string;
    sessionId: string;
  };
  source.prepare("UPDATE task_groups SET status = 'completed' WHERE id = ? AND session_id = ?").run(group.id, group.sessionId);
  source.close();
  const run = await proofgate(["--db", E2E_DB, "--json", "import", "bazinga", copy]);
  fs.rmSync(dir, { recursive: true, force: true });
  expect(run.code, run.stderr).toBe(0);
  return { sessionId: group.sessionId, groupId: group.id };
}

test("an imported BAZINGA session shows its tasks, migrated criteria and logs; analytics counts its unverified completions", async ({ page, ledger }) => {
  const { sessionId, groupId } = await importBazinga();

  const session = ledger.prepare("SELECT source, enforcement FROM sessions WHERE id = ?").get(sessionId) as { source: string; enforcement: string };
  expect(session).toEqual({ source: "bazinga", enforcement: "observe" });
  const tasks = ledger.prepare("SELECT key, status, verification FROM tasks WHERE session_id = ? ORDER BY id").all(sessionId) as {
    key: string;
    status: string;
    verification: string | null;
  }[];
  expect(tasks.find((t) => t.key === groupId)).toMatchObject({ status: "completed", verification: "none" });

  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(sessionId);
  for (const task of tasks) {
    await expect(page.getByTestId(`task-${task.key}`)).toHaveCount(1);
    await expect(page.getByTestId(`task-${task.key}`)).toHaveAttribute("data-status", task.status);
  }
  await expect(page.getByTestId(`task-${groupId}`)).toContainText("Reached completed without a verify move");
  await expect(page.getByText("unverified", { exact: true })).toHaveCount(tasks.filter((t) => t.verification === "none").length);

  // Criteria as imported, the ones recovered from the pm state snapshot marked.
  const criteria = ledger.prepare("SELECT criterion, migrated FROM success_criteria WHERE session_id = ? ORDER BY id").all(sessionId) as {
    criterion: string;
    migrated: number;
  }[];
  await expect(page.getByTestId("criterion")).toHaveCount(criteria.length);
  for (const c of criteria) {
    const card = page.getByTestId("criterion").filter({ has: page.getByRole("heading", { name: c.criterion, exact: true }) });
    await expect(card.getByText("migrated", { exact: true })).toHaveCount(c.migrated);
  }

  // Logs and reasoning: every imported row (fewer than a page).
  const { logs } = ledger.prepare("SELECT count(*) AS logs FROM orchestration_logs WHERE session_id = ?").get(sessionId) as { logs: number };
  expect(logs).toBeGreaterThan(0);
  await page.getByRole("navigation", { name: "Session views" }).getByRole("link", { name: "Logs" }).click();
  await expect(page.getByRole("list", { name: "Log entries" }).locator("[data-log-id]")).toHaveCount(logs);

  // Analytics, BAZINGA's sessions only: the legacy completions nobody verified.
  const { unverified } = ledger
    .prepare(
      "SELECT count(*) AS unverified FROM tasks t JOIN sessions s ON s.id = t.session_id WHERE s.source = 'bazinga' AND t.status = 'completed' AND t.verification = 'none'",
    )
    .get() as { unverified: number };
  expect(unverified).toBeGreaterThan(0);
  await page.goto("/analytics?source=bazinga");
  await expect(page.getByTestId("stat-unverified-count")).toHaveText(String(unverified));
});

test("a session with migrated criteria marks each of them", async ({ page, ledger }) => {
  await importBazinga();
  const { sessionId } = ledger
    .prepare(
      "SELECT session_id AS sessionId FROM success_criteria c JOIN sessions s ON s.id = c.session_id WHERE s.source = 'bazinga' AND c.migrated = 1 ORDER BY c.session_id LIMIT 1",
    )
    .get() as { sessionId: string };
  const { n } = ledger.prepare("SELECT count(*) AS n FROM success_criteria WHERE session_id = ? AND migrated = 1").get(sessionId) as { n: number };
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByTestId("criterion").getByText("migrated", { exact: true })).toHaveCount(n);
});
