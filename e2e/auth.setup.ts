import { expect, test as setup } from "@playwright/test";
import { E2E_PASSWORD, E2E_ROLES, authFile, emailOf } from "./users";

// Sign each role in once through the real sign-in page; the other specs start from these cookies.
for (const role of E2E_ROLES) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(emailOf(role));
    await page.getByLabel("Password").fill(E2E_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toContainText(`${emailOf(role)} · ${role}`);
    await page.context().storageState({ path: authFile(role) });
  });
}
