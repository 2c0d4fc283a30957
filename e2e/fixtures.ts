import Database from "better-sqlite3";
import { type Page, test as base, expect } from "@playwright/test";
import { E2E_DB } from "../playwright.config";

interface Fixtures {
  /** Read-only handle on the server's database, to compute expectations independently of the page. */
  ledger: Database.Database;
  /** Fails the test on any console error, failed request or hydration warning the page produces. */
  consoleErrors: string[];
  /**
   * Console errors a test provokes on purpose (e.g. the 401 of a wrong password), as ONE pattern:
   * `test.use({ expectedConsoleErrors: /status of (401|403)/ })`. (An array would be read by
   * Playwright as `[value, fixture options]`.)
   */
  expectedConsoleErrors: RegExp | null;
}

export const test = base.extend<Fixtures>({
  expectedConsoleErrors: [null, { option: true }],
  ledger: async ({}, provide) => {
    const db = new Database(E2E_DB, { readonly: true, fileMustExist: true });
    await provide(db);
    db.close();
  },
  consoleErrors: [
    async ({ page, expectedConsoleErrors }, provide) => {
      const errors: string[] = [];
      page.on("console", (message) => {
        // A failed load names no URL in its text; Chromium gives it as the message's location.
        const where = message.text().startsWith("Failed to load resource") && message.location().url ? ` (${message.location().url})` : "";
        if (message.type() === "error" || /hydrat/i.test(message.text())) errors.push(`${message.text()}${where}`);
      });
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("requestfailed", (request) => {
        // A request the page itself cancelled (leaving a page closes its live stream) is not a failure.
        if (request.failure()?.errorText !== "net::ERR_ABORTED") errors.push(`request failed: ${request.url()}`);
      });
      await provide(errors);
      expect(
        errors.filter((error) => !expectedConsoleErrors?.test(error)),
        "the page logged errors",
      ).toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/**
 * Waits until the dashboard page's scripts have run: React hydrated it and its live stream is
 * connected (the header says Live). The server's HTML is on screen earlier, and a key pressed or a
 * control clicked before hydration may do nothing: wait for this before a keyboard shortcut or a
 * control whose state nothing else on the page waits for.
 */
export async function hydrated(page: Page): Promise<void> {
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
}

/**
 * With SCREENSHOTS=1, write a screenshot beside the test results, named by page, project and colour
 * scheme. Nothing compares them: they are for people to look at, so an ordinary run (CI's) skips them.
 */
export async function screenshot(page: Page, name: string, project: string) {
  if (process.env.SCREENSHOTS !== "1") return;
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    // Transitions (e.g. a button fading to its dark colour) are fast-forwarded, not caught half-way.
    await page.screenshot({ path: `test-results/screenshots/${name}-${project}-${colorScheme}.png`, fullPage: true, animations: "disabled" });
  }
}
