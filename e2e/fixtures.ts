import Database from "better-sqlite3";
import { type Page, test as base, expect } from "@playwright/test";
import { E2E_DB } from "../playwright.config";

interface Fixtures {
  /** Read-only handle on the server's database, to compute expectations independently of the page. */
  ledger: Database.Database;
  /** Fails the test on any console error, failed request or hydration warning the page produces. */
  consoleErrors: string[];
}

export const test = base.extend<Fixtures>({
  ledger: async ({}, provide) => {
    const db = new Database(E2E_DB, { readonly: true, fileMustExist: true });
    await provide(db);
    db.close();
  },
  consoleErrors: [
    async ({ page }, provide) => {
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || /hydrat/i.test(message.text())) errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("requestfailed", (request) => errors.push(`request failed: ${request.url()}`));
      await provide(errors);
      expect(errors, "the page logged errors").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** Write a screenshot beside the test results, named by page, project and colour scheme. */
export async function screenshot(page: Page, name: string, project: string) {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: `test-results/screenshots/${name}-${project}-${colorScheme}.png`, fullPage: true });
  }
}
