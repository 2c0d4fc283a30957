/**
 * The overview and the analytics page count the stops Claude Code's hook held and those it let
 * through with the completion gate rejected: a session created inside a runtime session, one Stop
 * held by `proofgate hook claude-code`, the next (Claude Code's continuation, past the cap of 1)
 * let through unverified. The overview's counts move on the open page, without a reload.
 */
// flake-risks time: the UTC days the stops fall on, read either side of them: the check accepts either day (midnight)
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import { E2E_DB } from "../playwright.config";
import { BIN, uniqueId } from "./cli-helpers";
import { expect as baseExpect, test } from "./fixtures";

test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

function run(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("PROOFGATE_") || key === "CLAUDE_ENV_FILE") delete env[key];
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

test("held and unverified stops are counted on the overview (live) and in analytics", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  // The line shows once any stop was counted; before that, none was.
  const count = async (id: string) => ((await page.getByTestId(id).count()) === 0 ? 0 : Number(await page.getByTestId(id).textContent()));
  const before = { held: await count("runtime-stops-held"), unverified: await count("runtime-stops-unverified") };

  const id = uniqueId("e2e-stops");
  const runtimeId = `${id}-claude`;
  for (const args of [
    ["create-session", id, "simple", "Add JWT authentication"],
    ["save-success-criteria", id, '[{"criterion":"All tests passing"}]'],
  ]) {
    const created = await run([...args, "--db", E2E_DB, "--agent-id", "orchestrator", "--quiet"], { env: { PROOFGATE_RUNTIME_SESSION: runtimeId } });
    expect(created.code, created.stderr).toBe(0);
  }
  const stop = (active: boolean) =>
    JSON.stringify({
      session_id: runtimeId,
      transcript_path: "/tmp/t.jsonl",
      cwd: "/tmp",
      permission_mode: "default",
      hook_event_name: "Stop",
      stop_hook_active: active,
    });
  const hook = ["hook", "claude-code", "--db", E2E_DB, "--agent-id", "claude", "--max-blocks", "1"];
  // The UTC day the stops are made on (the check below may run after midnight).
  const dayBefore = new Date().toISOString().slice(0, 10);
  const held = await run(hook, { stdin: stop(false) });
  expect(held.code, held.stderr).toBe(0);
  expect(JSON.parse(held.stdout)).toMatchObject({ decision: "block" });
  const through = await run(hook, { stdin: stop(true) });
  expect(through.code, through.stderr).toBe(0);
  expect(JSON.parse(through.stdout)).not.toHaveProperty("decision", "block");

  await expect(page.getByTestId("runtime-stops-held")).toHaveText(String(before.held + 1));
  await expect(page.getByTestId("runtime-stops-unverified")).toHaveText(String(before.unverified + 1));
  await expect(page.getByTestId("runtime-stops")).toContainText("stopped with the gate rejected");

  await page.getByTestId("runtime-stops").getByRole("link", { name: "Over time" }).click();
  await expect(page).toHaveURL(/\/analytics/);
  const section = page.getByRole("region", { name: "Stops held by the completion gate" });
  await expect(section.getByTestId("stat-runtime-stops-held")).toHaveText(String(before.held + 1));
  await expect(section.getByTestId("stat-runtime-stops-unverified")).toHaveText(String(before.unverified + 1));
  await section.getByText("Show as table").click();
  await expect(section.getByRole("table")).toContainText("Stopped with the gate rejected");
  const [download] = await Promise.all([page.waitForEvent("download"), section.getByRole("button", { name: /Download CSV of/ }).click()]);
  const csv = await fs.readFile(await download.path(), "utf8");
  // A byte-order mark first, so spreadsheets read it as UTF-8.
  const lines = csv
    .replace(/^\uFEFF/, "")
    .trimEnd()
    .split("\r\n");
  expect(lines[0]).toBe("Day (UTC),Stops held,Stopped with the gate rejected");
  // The rows of the day the stops were made hold at least the two just made (summed over the day
  // before and today: the two stops may fall either side of midnight UTC).
  const today = new Date().toISOString().slice(0, 10);
  const days = lines.slice(1).map((line) => line.split(","));
  expect([dayBefore, today]).toContain(days.at(-1)![0]);
  const recent = days.filter(([day]) => day === dayBefore || day === today);
  expect(recent.reduce((sum, [, held]) => sum + Number(held), 0)).toBeGreaterThanOrEqual(1);
  expect(recent.reduce((sum, [, , through]) => sum + Number(through), 0)).toBeGreaterThanOrEqual(1);

  // The sessions list flags the session whose stop went through with the gate rejected.
  await page.goto(`/sessions?q=${id}`);
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: id }) });
  await expect(row).toContainText("stopped with the gate rejected");
});
