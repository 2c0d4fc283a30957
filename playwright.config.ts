import { execFileSync } from "node:child_process";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { authFile } from "./e2e/users";

/**
 * The dashboard's port: PROOFGATE_E2E_PORT, or else one the kernel hands out now. It is written back
 * to the environment, so the workers (which load this file again) and the specs reading it agree.
 */
// flake-risks port: a free port is asked of the kernel once per run; nothing else listens on it
if (!process.env.PROOFGATE_E2E_PORT) process.env.PROOFGATE_E2E_PORT = freePort();
const PORT = Number(process.env.PROOFGATE_E2E_PORT);

function freePort(): string {
  const script = "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim();
}
/** A throwaway database, recreated and seeded by the web server command on every run. */
export const E2E_DB = path.resolve(".e2e", "proofgate.db");

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  fullyParallel: false,
  workers: 1,
  // In CI a stray test.only fails the run, and a test that fails and then passes on its one retry
  // fails the run too (flaky): the retry is there for its trace, never to turn a failure green.
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  failOnFlakyTests: !!process.env.CI,
  reporter: [["list"]],
  // Generous: a shared 2-core machine stalls at times. Waits only stop a hang; speed is `npm run bench`'s.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // The retry records a trace of the same steps; the failing attempt keeps its screenshot.
    trace: "on-first-retry",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.PROOFGATE_CHROMIUM ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
  },
  projects: [
    // Signs in once per role; pages start signed in as a lead unless a spec picks another role.
    { name: "setup", testMatch: /auth\.setup\.ts/, use: { ...devices["Desktop Chrome"], channel: undefined } },
    { name: "desktop", dependencies: ["setup"], use: { ...devices["Desktop Chrome"], channel: undefined, storageState: authFile("lead") } },
    // At a phone's size only the tests tagged @mobile run: each page's main view and its dialogs,
    // where the layout changes (folded filters, stacked columns). The rest assert nothing a screen's
    // size changes, and the command-line specs drive no screen at all.
    {
      name: "phone",
      dependencies: ["setup"],
      use: { ...devices["Pixel 7"], channel: undefined, storageState: authFile("lead") },
      grep: /@mobile/,
      testIgnore: /cli-.*\.spec\.ts/,
    },
  ],
  webServer: {
    command: `node scripts/e2e-server.mjs ${JSON.stringify(E2E_DB)} ${PORT}`,
    url: `http://127.0.0.1:${PORT}`,
    reuseExistingServer: !process.env.CI,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
  },
});
