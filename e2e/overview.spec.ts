import { expect, screenshot, test } from "./fixtures";

test("the overview shows the ledger's session totals and each session's real progress", async ({ page, ledger }, testInfo) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();

  const totals = ledger.prepare("SELECT status, count(*) AS n FROM sessions GROUP BY status").all() as { status: string; n: number }[];
  const all = totals.reduce((sum, row) => sum + row.n, 0);
  await expect(page.getByTestId("total-sessions")).toHaveText(String(all));
  for (const status of ["active", "completed", "failed"]) {
    const n = totals.find((row) => row.status === status)?.n ?? 0;
    await expect(page.getByTestId(`total-${status}`)).toHaveText(String(n));
  }

  // The newest session's bars show counts recomputed from the task and criteria rows themselves.
  const newest = ledger.prepare("SELECT id FROM sessions ORDER BY started_at DESC, id DESC LIMIT 1").get() as { id: string };
  const tasks = ledger.prepare("SELECT count(*) AS total, sum(status = 'completed') AS done FROM tasks WHERE session_id = ?").get(newest.id) as { total: number; done: number };
  const criteria = ledger
    .prepare("SELECT sum(required_for_completion) AS required, sum(required_for_completion AND coalesce(verifier_status, status) = 'met') AS met FROM success_criteria WHERE session_id = ?")
    .get(newest.id) as { required: number | null; met: number | null };
  const row = page.getByRole("row").filter({ hasText: newest.id });
  await expect(row.getByRole("progressbar", { name: `Tasks completed in ${newest.id}` })).toHaveAttribute("aria-valuenow", String(tasks.done));
  await expect(row.getByRole("progressbar", { name: `Tasks completed in ${newest.id}` })).toHaveAttribute("aria-valuemax", String(tasks.total));
  await expect(row).toContainText(`${criteria.met ?? 0}/${criteria.required ?? 0}`);

  await screenshot(page, "overview", testInfo.project.name);
});
