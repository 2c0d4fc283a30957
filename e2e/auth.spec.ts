// flake-risks port: next start needs a port number: one chosen free; a port taken in between fails the start loudly, never passes wrongly
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { closedPort } from "./cli-helpers";
import { expect, screenshot, test } from "./fixtures";
import { E2E_PASSWORD, authFile, emailOf } from "./users";

test.describe("signed out", () => {
  // The wrong password's 401 is the point of the test.
  test.use({ storageState: { cookies: [], origins: [] }, expectedConsoleErrors: /status of 401/ });

  test("a visitor is sent to sign in, a wrong password is refused, the right one opens the dashboard, sign-out ends it @mobile", async ({ page }, testInfo) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/sign-in/);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await screenshot(page, "sign-in", testInfo.project.name);

    await page.getByLabel("Email").fill(emailOf("lead"));
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText("Wrong email or password.");

    await page.getByLabel("Password").fill(E2E_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page).not.toHaveURL(/sign-in/);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    await page.goto("/");
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("/favicon.ico, asked for by browsers whatever a page declares, is the app's icon, signed out too", async ({ request }) => {
    const redirect = await request.get("/favicon.ico", { maxRedirects: 0 });
    expect(redirect.status()).toBe(308);
    expect(redirect.headers().location).toBe("/icon.svg");
    const icon = await request.get("/favicon.ico");
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toContain("image/svg+xml");
    expect(await icon.text()).toContain("<svg");
  });

  test("the API refuses a signed-out browser", async ({ request }) => {
    const response = await request.get("/api/trpc/session.list?input=%7B%22json%22%3A%7B%7D%7D");
    expect(response.status()).toBe(401);
  });
});

test.describe("roles in the navigation", () => {
  test.use({ storageState: authFile("viewer") });
  test("a viewer is told who they are and is not offered Settings", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Settings" })).toHaveCount(0);
  });
});

test.describe("roles in the navigation (admin)", () => {
  test.use({ storageState: authFile("admin") });
  test("an admin is offered Settings", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" })).toBeVisible();
  });
});

test.describe("first run", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test("a fresh install's first visitor creates the admin account and is signed in", async ({ page }, testInfo) => {
    test.skip(testInfo.project.name !== "desktop", "one fresh server is enough");
    const dir = mkdtempSync(path.join(tmpdir(), "proofgate-first-run-"));
    // A free port, not a fixed one another run on this machine may hold (its server, already set up, would answer).
    const port = await closedPort();
    const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
      env: { ...process.env, PROOFGATE_DB: path.join(dir, "fresh.db"), NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "ignore",
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      await expect
        .poll(
          async () =>
            fetch(base)
              .then((r) => r.status)
              .catch(() => 0),
          { timeout: 20_000 },
        )
        .toBeGreaterThan(0);
      await page.goto(`${base}/`);
      await expect(page).toHaveURL(/\/setup$/);
      await expect(page.getByRole("heading", { name: "Create the admin account" })).toBeVisible();
      await screenshot(page, "setup", testInfo.project.name);

      await page.getByLabel("Email").fill("first@example.com");
      await page.getByLabel("Password", { exact: true }).fill("a-long-password");
      await page.getByLabel("Confirm password").fill("a-different-one");
      await page.getByRole("button", { name: "Create admin account" }).click();
      await expect(page.locator("form").getByRole("alert")).toContainText("the two passwords differ");

      await page.getByLabel("Confirm password").fill("a-long-password");
      await page.getByRole("button", { name: "Create admin account" }).click();
      await expect(page.getByTestId("signed-in-as")).toHaveText("first@example.com · admin");
      // Setup is over: the page now sends visitors to sign in.
      await page.goto(`${base}/setup`);
      await expect(page).toHaveURL(/\/$/);
    } finally {
      server.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
