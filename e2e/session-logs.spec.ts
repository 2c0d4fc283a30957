import type Database from "better-sqlite3";
import type { Page } from "@playwright/test";
import { LOG_PAGE_SIZE } from "../app/(dashboard)/sessions/[id]/logs/log-filters";
import { formatTokens } from "../app/(dashboard)/sessions/[id]/tokens/chart-data";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect, screenshot, test } from "./fixtures";

/** The demo session with the most log rows: several pages of them. */
function busiestSession(ledger: Database.Database): string {
  return (
    ledger.prepare("SELECT session_id AS id FROM orchestration_logs GROUP BY session_id ORDER BY count(*) DESC, session_id LIMIT 1").get() as { id: string }
  ).id;
}

/** The session's log ids matching `where`, newest first, straight from the ledger. */
function logIds(ledger: Database.Database, sessionId: string, where = "", ...params: unknown[]): number[] {
  return (ledger.prepare(`SELECT id FROM orchestration_logs WHERE session_id = ? ${where} ORDER BY id DESC`).all(sessionId, ...params) as { id: number }[]).map(
    (r) => r.id,
  );
}

const entries = (page: Page) => page.getByRole("list", { name: "Log entries" }).locator("[data-log-id]");

async function shownIds(page: Page): Promise<number[]> {
  return entries(page).evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-log-id"))));
}

/** The page shows exactly these ids, in this order. */
async function expectShown(page: Page, ids: number[]) {
  await expect(entries(page)).toHaveCount(ids.length);
  await expect.poll(() => shownIds(page)).toEqual(ids);
}

async function loadAll(page: Page) {
  const older = page.getByRole("button", { name: "Load older" });
  while (await older.isVisible()) {
    const before = await entries(page).count();
    await older.click();
    await expect(entries(page)).not.toHaveCount(before);
  }
}

test.describe("logs and reasoning", () => {
  test("'Load older' walks back through every row of the session, page by page, with no duplicates @mobile", async ({ page, ledger }, testInfo) => {
    const sessionId = busiestSession(ledger);
    const all = logIds(ledger, sessionId);
    expect(all.length).toBeGreaterThan(2 * LOG_PAGE_SIZE);

    await page.goto(`/sessions/${sessionId}/logs`);
    await expect(page.getByRole("heading", { name: "Logs and reasoning" })).toBeVisible();
    await expectShown(page, all.slice(0, LOG_PAGE_SIZE));
    await screenshot(page, "session-logs", testInfo.project.name);

    for (let shown = LOG_PAGE_SIZE; shown < all.length; shown += LOG_PAGE_SIZE) {
      await page.getByRole("button", { name: "Load older" }).click();
      await expectShown(page, all.slice(0, shown + LOG_PAGE_SIZE));
    }
    await expect(page.getByRole("button", { name: "Load older" })).toHaveCount(0);
    await expect(page.getByText("No older entries.")).toBeVisible();
    const ids = await shownIds(page);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(all);
  });

  test("type, phase and agent filters show the ledger's matching rows and live in the URL", async ({ page, ledger }) => {
    const sessionId = busiestSession(ledger);
    const { phase } = ledger
      .prepare(
        "SELECT reasoning_phase AS phase FROM orchestration_logs WHERE session_id = ? AND log_type = 'reasoning' GROUP BY reasoning_phase ORDER BY count(*) DESC LIMIT 1",
      )
      .get(sessionId) as { phase: string };
    const { agent } = ledger
      .prepare("SELECT agent_type AS agent FROM orchestration_logs WHERE session_id = ? GROUP BY agent_type ORDER BY count(*), agent_type LIMIT 1")
      .get(sessionId) as { agent: string };

    await page.goto(`/sessions/${sessionId}/logs`);
    await expectShown(page, logIds(ledger, sessionId).slice(0, LOG_PAGE_SIZE));

    await page.getByLabel("Type", { exact: true }).selectOption("reasoning");
    await expect(page).toHaveURL(/[?&]type=reasoning/);
    await expectShown(page, logIds(ledger, sessionId, "AND log_type = 'reasoning'").slice(0, LOG_PAGE_SIZE));

    await page.getByLabel("Reasoning phase").selectOption(phase);
    await expect(page).toHaveURL(new RegExp(`[?&]phase=${phase}`));
    const phased = logIds(ledger, sessionId, "AND log_type = 'reasoning' AND reasoning_phase = ?", phase);
    await expectShown(page, phased.slice(0, LOG_PAGE_SIZE));
    await expect(entries(page).first()).toContainText(`phase: ${phase}`);

    // A phase applies to reasoning only: another type drops it.
    await page.getByLabel("Type", { exact: true }).selectOption("event");
    await expect(page.getByLabel("Reasoning phase")).toBeDisabled();
    await expect(page).not.toHaveURL(/phase=/);
    await expectShown(page, logIds(ledger, sessionId, "AND log_type = 'event'").slice(0, LOG_PAGE_SIZE));

    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByLabel("Agent").fill(agent);
    await expect(page).toHaveURL(new RegExp(`[?&]agent=${agent}`));
    const byAgent = logIds(ledger, sessionId, "AND agent_type = ?", agent);
    await expectShown(page, byAgent.slice(0, LOG_PAGE_SIZE));

    // The URL alone brings the filtered view back.
    await page.reload();
    await expect(page.getByLabel("Agent")).toHaveValue(agent);
    await expectShown(page, byAgent.slice(0, LOG_PAGE_SIZE));
  });

  test("text search finds a known log line, older than the first page", async ({ page, ledger }) => {
    const sessionId = busiestSession(ledger);
    // The session's first interaction: far beyond the newest page.
    const known = ledger
      .prepare("SELECT id, content FROM orchestration_logs WHERE session_id = ? AND log_type = 'interaction' ORDER BY id LIMIT 1")
      .get(sessionId) as { id: number; content: string };
    const words = known.content.slice(0, 60);
    const matching = logIds(
      ledger,
      sessionId,
      "AND (instr(lower(content), lower(?)) > 0 OR instr(lower(coalesce(event_payload, '')), lower(?)) > 0)",
      words,
      words,
    );
    expect(matching).toContain(known.id);

    await page.goto(`/sessions/${sessionId}/logs`);
    await page.getByLabel("Search text").fill(words);
    await expect(page).toHaveURL(/[?&]q=/);
    await expectShown(page, matching.slice(0, LOG_PAGE_SIZE));
    await loadAll(page);
    await expectShown(page, matching);
    await expect(page.locator(`[data-log-id="${known.id}"]`)).toContainText(known.content);
  });

  test("reasoning shows its phase, confidence and references; redacted rows are flagged", async ({ page, ledger }) => {
    const sessionId = busiestSession(ledger);
    const newest = logIds(ledger, sessionId).slice(0, LOG_PAGE_SIZE);
    const redacted = new Set(logIds(ledger, sessionId, "AND redacted = 1"));
    const reasoning = ledger
      .prepare(
        "SELECT id, reasoning_phase AS phase, confidence_level AS confidence, references_json AS refs FROM orchestration_logs WHERE session_id = ? AND log_type = 'reasoning' ORDER BY id DESC LIMIT 1",
      )
      .get(sessionId) as { id: number; phase: string; confidence: string; refs: string };

    await page.goto(`/sessions/${sessionId}/logs`);
    await expectShown(page, newest);
    await expect(entries(page).filter({ hasText: "secrets redacted" })).toHaveCount(newest.filter((id) => redacted.has(id)).length);
    for (const id of newest.filter((id) => redacted.has(id)).slice(0, 3)) await expect(page.locator(`[data-log-id="${id}"]`)).toContainText("secrets redacted");

    await page.goto(`/sessions/${sessionId}/logs?type=reasoning`);
    const row = page.locator(`[data-log-id="${reasoning.id}"]`);
    await expect(row).toContainText(`phase: ${reasoning.phase}`);
    await expect(row).toContainText(`confidence: ${reasoning.confidence}`);
    for (const reference of JSON.parse(reasoning.refs) as string[]) await expect(row).toContainText(reference);
  });
});

test("an interaction an agent logs from the command line appears at the top without a reload, its secret redacted", async ({ page }) => {
  const sessionId = uniqueId("e2e-logs");
  const cli = async (...args: string[]) => {
    const run = await proofgate(["--db", E2E_DB, "--agent-id", "developer_1", ...args]);
    expect(run.code, run.stderr).toBe(0);
  };
  await cli("create-session", sessionId, "simple", "Logs written while the page is open");
  await page.goto(`/sessions/${sessionId}/logs`);
  await expect(page.getByText("No logs in this session yet.")).toBeVisible();
  // The stream starts from the newest event when it connects: a write before that is not news to it.
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");

  await cli("log-interaction", sessionId, "developer", "Wired the upload retry loop", "1", "developer_1");
  await expect(entries(page)).toHaveCount(1);
  const secret = "ghp_" + "a".repeat(36);
  await cli("log-interaction", sessionId, "developer", `Pushed with token ${secret}`, "2", "developer_1");
  await expect(entries(page)).toHaveCount(2);
  await expect(entries(page).first()).toContainText("Pushed with token");
  await expect(entries(page).first()).toContainText("secrets redacted");
  await expect(entries(page).first()).not.toContainText(secret);
  await expect(entries(page).last()).toContainText("Wired the upload retry loop");
});

test.describe("tokens", () => {
  test("the tables' totals equal the ledger's sums and the charts draw them", async ({ page, ledger }, testInfo) => {
    // The session whose token reports are spread over the most minutes: several periods to chart.
    const { sessionId } = ledger
      .prepare("SELECT session_id AS sessionId FROM token_usage GROUP BY session_id ORDER BY count(DISTINCT timestamp / 60000) DESC, session_id LIMIT 1")
      .get() as { sessionId: string };
    const byAgent = ledger
      .prepare("SELECT agent_type AS agent, sum(tokens_estimated) AS tokens, count(*) AS entries FROM token_usage WHERE session_id = ? GROUP BY agent_type")
      .all(sessionId) as { agent: string; tokens: number; entries: number }[];
    const total = byAgent.reduce((sum, row) => sum + row.tokens, 0);
    const reports = byAgent.reduce((sum, row) => sum + row.entries, 0);
    const periods = (ms: number) =>
      (ledger.prepare("SELECT count(DISTINCT timestamp / CAST(? AS INTEGER)) AS n FROM token_usage WHERE session_id = ?").get(ms, sessionId) as { n: number })
        .n;

    await page.goto(`/sessions/${sessionId}/tokens`);
    await expect(page.getByRole("heading", { name: "Tokens", exact: true })).toBeVisible();
    await expect(page.getByTestId("token-total")).toContainText(`${formatTokens(total)} tokens in ${reports} reports`);

    const agents = page.getByRole("table", { name: "Tokens by agent" });
    for (const row of byAgent) {
      const cells = agents
        .getByRole("row")
        .filter({ has: page.getByRole("rowheader", { name: row.agent, exact: true }) })
        .getByRole("cell");
      await expect(cells.nth(0)).toHaveText(formatTokens(row.tokens));
      await expect(cells.nth(1)).toHaveText(formatTokens(row.entries));
    }
    const footer = agents
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "Total" }) })
      .getByRole("cell");
    await expect(footer.nth(0)).toHaveText(formatTokens(total));
    await expect(footer.nth(1)).toHaveText(formatTokens(reports));

    // Automatic periods: the finest bucket with at most 90 periods that used tokens.
    const counts = { minute: periods(60_000), hour: periods(3_600_000), day: periods(86_400_000) };
    const auto = counts.minute <= 90 ? "minute" : counts.hour <= 90 ? "hour" : "day";
    const periodRows = (bucket: string) => page.getByRole("table", { name: `Tokens per ${bucket}` }).locator("tbody tr");
    await expect(periodRows(auto)).toHaveCount(counts[auto]);
    await expect(periodRows(auto).last().getByRole("cell").nth(1)).toHaveText(formatTokens(total));

    // The charts: one bar per agent; per-period bars stacked by agent, with the running total as a line.
    await expect(page.getByRole("figure", { name: "Chart of tokens by agent" }).locator("svg .recharts-bar-rectangle")).toHaveCount(byAgent.length);
    const timeChart = page.getByRole("figure", { name: "Chart of tokens over time" });
    await expect(timeChart.locator("svg .recharts-bar-rectangle").first()).toBeVisible();
    await expect(timeChart.locator("svg .recharts-line")).toHaveCount(1);
    if (counts[auto] > 1) await expect(timeChart.locator("svg path.recharts-line-curve")).toHaveCount(1);
    await screenshot(page, "session-tokens", testInfo.project.name);

    for (const bucket of ["day", "hour", "minute"] as const) {
      await page.getByLabel("Period").selectOption(bucket);
      await expect(page).toHaveURL(new RegExp(`[?&]bucket=${bucket}`));
      await expect(periodRows(bucket)).toHaveCount(counts[bucket]);
      await expect(periodRows(bucket).last().getByRole("cell").nth(1)).toHaveText(formatTokens(total));
    }
  });
});
