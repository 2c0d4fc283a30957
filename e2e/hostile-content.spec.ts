/**
 * Hostile content in the browser: a session of this test's own, seeded at run time through the
 * CLI (local mode on the server's database), whose requirements, criteria, evidence, proofpack,
 * log text, goal and tool outputs carry script and HTML payloads and `javascript:` links. The
 * session pages must show them as text, no dialog may open, and only http(s) and relative
 * evidence links may be clickable. Secrets written through the CLI are stored redacted.
 */
import type { Page } from "@playwright/test";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, test } from "./fixtures";

test.describe.configure({ timeout: 120_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

const SCRIPT = "<script>alert(1)</script>";
const IMG = "<img src=x onerror=alert(1)>";
const JS_LINK = "javascript:alert(1)";
const SVG = '<svg onload="alert(1)"></svg>';
const PAYLOAD = `${SCRIPT} ${IMG} ${SVG}`;
const SECRET = `sk-proj-${"Q7w8E9r0".repeat(4)}`;

async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
  return run;
}

/** A session whose every text field a page shows carries the payloads. */
async function hostileSession(): Promise<string> {
  const id = uniqueId("e2e-hostile");
  await cli("orchestrator", "create-session", id, "parallel", `Requirements ${PAYLOAD}`);
  await cli("orchestrator", "create-task-group", "X1", id, `Task ${IMG}`);
  await cli("orchestrator", "create-task-group", "X2", id, "Second task");
  await cli(
    "developer_1",
    "claim",
    id,
    "X1",
    "--evidence",
    JSON.stringify([
      JS_LINK,
      " javascript:alert(2)",
      "JaVaScRiPt:alert(3)",
      "data:text/html,<script>alert(4)</script>",
      "//evil.example/x",
      "https://ci.example.com/run/1",
      "artifacts/report.txt",
      SCRIPT,
    ]),
  );
  await cli("developer_1", "claim", id, "X2", "--evidence", "artifacts/b.txt");
  await cli(
    "verifier_1",
    "verify",
    id,
    "X2",
    "--proofpack",
    JSON.stringify({ verdict: "PASSED", checks: [{ name: "xss check", passed: true, detail: PAYLOAD }], notes: `${SCRIPT} ${JS_LINK}` }),
  );
  await cli("orchestrator", "save-success-criteria", id, JSON.stringify([{ criterion: `Criterion ${SCRIPT}`, evidence: `${IMG} ${JS_LINK}`, actual: SVG }]));
  await cli("developer_1", "log-interaction", id, "developer", `Log ${PAYLOAD} and a key ${SECRET}`);
  await cli("developer_1", "save-reasoning", id, "X1", "developer", "understanding", `Reasoning ${SCRIPT}`);
  const goal = await proofgate(["create-goal", id, `Goal ${IMG}`, "--db", E2E_DB, "--json"]);
  const goalId = (JSON.parse(goal.stdout) as { id: number }).id;
  const attempt = await proofgate(["start-attempt", String(goalId), "--db", E2E_DB, "--json"]);
  const attemptId = (JSON.parse(attempt.stdout) as { attempt?: { id: number }; id?: number }).attempt?.id ?? (JSON.parse(attempt.stdout) as { id: number }).id;
  await cli(
    "developer_1",
    "record-tool-calls",
    String(attemptId),
    JSON.stringify([{ tool: "bash", input: { command: SCRIPT }, output: `${PAYLOAD} ${SECRET}` }]),
  );
  return id;
}

/** Fail on any dialog (an alert from a payload) for the rest of the test. */
function forbidDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return dialogs;
}

/** Every link in the page's main content points to http(s) or to a path on this site. */
async function expectOnlySafeLinks(page: Page) {
  const hrefs = await page.locator("main a[href]").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
  for (const href of hrefs) expect(href, `unsafe link ${href}`).toMatch(/^(https?:\/\/|\/(?!\/)|[A-Za-z0-9._~-][^:]*$)/);
  expect(hrefs.some((h) => /^\s*(javascript|data|vbscript):/i.test(h))).toBe(false);
}

test("payloads in every field render as text, fire nothing, and only safe evidence is a link", async ({ page, ledger }) => {
  const id = await hostileSession();
  const dialogs = forbidDialogs(page);

  await page.goto(`/sessions/${id}`);
  await expect(page.getByText(`Requirements ${PAYLOAD}`).first()).toBeVisible();
  await expect(page.getByText(`Task ${IMG}`).first()).toBeVisible();
  await expect(page.getByText(`Criterion ${SCRIPT}`).first()).toBeVisible();
  // The evidence list (in the task's details): javascript:, data: and protocol-relative entries are text, not links.
  await page.getByRole("article", { name: /^X1 / }).getByText("Details and history").click();
  await page.getByRole("article", { name: /^X2 / }).getByText("Details and history").click();
  await expect(page.getByText(JS_LINK, { exact: true }).first()).toBeVisible();
  await expect(page.getByText("JaVaScRiPt:alert(3)", { exact: true }).first()).toBeVisible();
  await expect(page.getByText(`${SCRIPT} ${JS_LINK}`).first()).toBeVisible();
  await expect(page.getByRole("link", { name: JS_LINK })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "//evil.example/x" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "https://ci.example.com/run/1" }).first()).toHaveAttribute("href", "https://ci.example.com/run/1");
  await expect(page.getByRole("link", { name: "artifacts/report.txt" }).first()).toHaveAttribute("href", "artifacts/report.txt");
  // No payload became an element.
  expect(await page.locator("main script, main img[src='x'], main svg[onload]").count()).toBe(0);
  await expectOnlySafeLinks(page);

  await page.goto(`/sessions/${id}/logs`);
  await expect(page.getByText(`Reasoning ${SCRIPT}`).first()).toBeVisible();
  await expect(page.getByText(/^Log <script>alert\(1\)<\/script>/).first()).toBeVisible();
  expect(await page.locator("main script, main img[src='x'], main svg[onload]").count()).toBe(0);

  await page.goto(`/sessions/${id}/goals`);
  await expect(page.getByText(`Goal ${IMG}`).first()).toBeVisible();
  expect(await page.locator("main script, main img[src='x'], main svg[onload]").count()).toBe(0);
  await expectOnlySafeLinks(page);

  expect(dialogs, "a payload opened a dialog").toEqual([]);

  // The secret reached the ledger only redacted: in the log, the tool output and their events.
  const tables = ledger.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[];
  for (const { name } of tables) {
    const columns = ledger.prepare(`select name from pragma_table_info('${name}')`).all() as { name: string }[];
    for (const column of columns) {
      const hit = ledger.prepare(`select count(*) as n from "${name}" where instr(cast("${column.name}" as text), ?) > 0`).get(SECRET) as { n: number };
      expect(hit.n, `${name}.${column.name} holds the secret in clear`).toBe(0);
    }
  }
  await expect(page.getByText(SECRET)).toHaveCount(0);
});
