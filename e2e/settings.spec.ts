// flake-risks time: a unique name, nothing more: any value unlike another run's will do
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, hydrated, screenshot, test } from "./fixtures";
import { authFile, emailOf } from "./users";

// Both projects run these against one database: everything created is unique per project and run.
const unique = (project: string) => `${project}-${Date.now()}`;
const SESSION_LIST = "/api/trpc/session.list?input=%7B%22json%22%3A%7B%7D%7D";

function sessionListWith(request: APIRequestContext, token: string) {
  return request.get(SESSION_LIST, { headers: { Authorization: `Bearer ${token}` } });
}

/** The table row that mentions `text` (a user's email, a token's name). */
function rowWith(page: Page, text: string) {
  return page.getByRole("table").getByRole("row").filter({ hasText: text });
}

test.describe("as an admin", () => {
  test.use({ storageState: authFile("admin") });

  test.describe("users", () => {
    // The short password (400) and the duplicate email (409) are refused on purpose. One pattern:
    // Playwright would read a two-element array given to test.use as [value, fixture options].
    test.use({ expectedConsoleErrors: /status of (400 \(Bad Request\)|409 \(Conflict\))/ });

    test("lists the ledger's users, creates one who can sign in, refuses a duplicate email at its field, and changes a role after confirmation @mobile", async ({
      page,
      ledger,
      browser,
    }, testInfo) => {
      await page.goto("/settings");
      await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Users" })).toHaveAttribute("aria-current", "page");
      const people = ledger.prepare("SELECT email, role FROM users").all() as { email: string; role: string }[];
      for (const person of people) await expect(rowWith(page, person.email)).toContainText(person.role);

      const email = `user-${unique(testInfo.project.name)}@proofgate.test`;
      const password = "a-new-users-password";
      await page.getByLabel("Email", { exact: true }).fill(email);
      await page.getByLabel("Name", { exact: true }).fill("New Person");
      await page.getByLabel("Password", { exact: true }).fill("short");
      await page.getByRole("button", { name: "Create user" }).click();
      // The server's rule, at the field it is about.
      await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/must be at least 10 characters/);
      await expect(page.getByLabel("Password", { exact: true })).toHaveAttribute("aria-invalid", "true");

      await page.getByLabel("Password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Create user" }).click();
      await expect(page.getByRole("main").getByRole("status")).toHaveText(`Created ${email} (viewer). They can sign in now.`);
      await expect(rowWith(page, email)).toContainText("New Person");
      await expect(rowWith(page, email)).toContainText("viewer");
      expect(ledger.prepare("SELECT name, role FROM users WHERE email = ?").get(email)).toEqual({ name: "New Person", role: "viewer" });

      // The same email again is refused, and the refusal names the Email field.
      await page.getByLabel("Email", { exact: true }).fill(email.toUpperCase());
      await page.getByLabel("Password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Create user" }).click();
      await expect(page.getByLabel("Email", { exact: true })).toHaveAccessibleDescription(`a user with email ${email} already exists`);
      expect(ledger.prepare("SELECT count(*) AS n FROM users WHERE email = ?").get(email)).toEqual({ n: 1 });
      await screenshot(page, "settings-users", testInfo.project.name);

      // The new person signs in from a browser of their own.
      const theirs = await browser.newContext({ baseURL: testInfo.project.use.baseURL, storageState: { cookies: [], origins: [] } });
      try {
        const theirPage = await theirs.newPage();
        await theirPage.goto("/sign-in");
        await theirPage.getByLabel("Email").fill(email);
        await theirPage.getByLabel("Password").fill(password);
        await theirPage.getByRole("button", { name: "Sign in" }).click();
        await expect(theirPage.getByTestId("signed-in-as")).toHaveText(`${email} · viewer`);

        // Promote them to lead: a confirmation first, then the change, which their next request sees.
        await rowWith(page, email).getByLabel(`New role for ${email}`).selectOption("lead");
        await rowWith(page, email)
          .getByRole("button", { name: `Change role of ${email}` })
          .click();
        const dialog = page.getByRole("dialog", { name: "Change role?" });
        await expect(dialog).toContainText(`${email} goes from viewer to lead`);
        expect(ledger.prepare("SELECT role FROM users WHERE email = ?").get(email)).toEqual({ role: "viewer" });
        await dialog.getByRole("button", { name: "Change role" }).click();
        await expect(dialog).toBeHidden();
        await expect(rowWith(page, email).getByRole("cell").nth(1)).toHaveText("lead");
        expect(ledger.prepare("SELECT role FROM users WHERE email = ?").get(email)).toEqual({ role: "lead" });

        await theirPage.reload();
        await expect(theirPage.getByTestId("signed-in-as")).toHaveText(`${email} · lead`);
      } finally {
        await theirs.close();
      }
    });
  });

  test.describe("the last admin", () => {
    test.use({ expectedConsoleErrors: /status of 403 \(Forbidden\)/ });

    test("the last admin cannot demote themselves: the dialog shows the service's refusal and nothing changes", async ({ page, ledger }) => {
      // Precondition: the suite never creates a second admin, so this admin is the only one.
      expect(ledger.prepare("SELECT email FROM users WHERE role = 'admin'").all()).toEqual([{ email: emailOf("admin") }]);
      await page.goto("/settings");
      const me = rowWith(page, emailOf("admin"));
      await expect(me).toContainText("(you)");
      // A choice made before React hydrated the select would be lost.
      await hydrated(page);
      await me.getByLabel(`New role for ${emailOf("admin")}`).selectOption("viewer");
      await me.getByRole("button", { name: `Change role of ${emailOf("admin")}` }).click();
      const dialog = page.getByRole("dialog", { name: "Change role?" });
      await expect(dialog).toContainText("This is you: you will no longer be able to open Settings.");
      await dialog.getByRole("button", { name: "Change role" }).click();
      await expect(dialog.getByRole("alert")).toHaveText("the last admin cannot be demoted");
      expect(ledger.prepare("SELECT role FROM users WHERE email = ?").get(emailOf("admin"))).toEqual({ role: "admin" });

      // Escape closes it, from the keyboard.
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      await expect(me.getByRole("cell").nth(1)).toHaveText("admin");
    });
  });

  test("an API token is shown once, works as a Bearer token, shows when it was last used, and gets 401 once revoked", async ({
    page,
    ledger,
    request,
    context,
  }, testInfo) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto("/settings");
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "API tokens" }).click();
    await expect(page).toHaveURL(/\/settings\/tokens$/);

    const name = `agent ${unique(testInfo.project.name)}`;
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("Role", { exact: true }).selectOption("agent");
    await page.getByRole("button", { name: "Create token" }).click();

    await expect(page.getByRole("main").getByRole("alert")).toContainText("This is the only time Proofgate shows this token.");
    const token = await page.getByLabel("New API token").inputValue();
    expect(token).toMatch(/^pg_[A-Za-z0-9_-]{43}$/);
    await page.getByRole("button", { name: "Copy token" }).click();
    await expect(page.getByRole("main").getByRole("status")).toHaveText("Copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    const stored = ledger.prepare("SELECT role, prefix, last_used_at FROM api_tokens WHERE name = ?").get(name);
    expect(stored).toEqual({ role: "agent", prefix: token.slice(0, 10), last_used_at: null });
    await screenshot(page, "settings-token-created", testInfo.project.name);

    // Once dismissed, the token's text is gone from the page for good.
    await page.getByRole("button", { name: "I have saved it" }).click();
    await expect(page.getByLabel("New API token")).toHaveCount(0);
    await expect(page.getByText(token)).toHaveCount(0);
    const row = rowWith(page, name);
    await expect(row).toContainText("agent");
    await expect(row).toContainText(`${token.slice(0, 10)}…`);
    await expect(row).toContainText("never");
    await expect(row).toContainText("active");

    // The token reads the API, and the ledger's newest session is what it gets.
    const allowed = await sessionListWith(request, token);
    expect(allowed.status()).toBe(200);
    const newest = ledger.prepare("SELECT id FROM sessions ORDER BY started_at DESC, id DESC LIMIT 1").get() as { id: string };
    const body = (await allowed.json()) as { result: { data: { json: { items: { id: string }[] } } } };
    expect(body.result.data.json.items[0]?.id).toBe(newest.id);
    expect((ledger.prepare("SELECT last_used_at FROM api_tokens WHERE name = ?").get(name) as { last_used_at: number | null }).last_used_at).not.toBeNull();
    await page.reload();
    await expect(row).not.toContainText("never");
    await expect(row.locator("time")).toHaveCount(2);

    // Revoke, after confirming: from then on the API answers 401.
    await row.getByRole("button", { name: `Revoke ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this token?" });
    await expect(dialog).toContainText("every request with it gets 401");
    await dialog.getByRole("button", { name: "Revoke token" }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText("revoked");
    await expect(row.getByRole("button", { name: `Revoke ${name}` })).toHaveCount(0);
    expect((ledger.prepare("SELECT revoked_at FROM api_tokens WHERE name = ?").get(name) as { revoked_at: number | null }).revoked_at).not.toBeNull();
    expect((await sessionListWith(request, token)).status()).toBe(401);
    await screenshot(page, "settings-tokens", testInfo.project.name);
  });

  test.describe("token input", () => {
    test.use({ expectedConsoleErrors: /status of 400 \(Bad Request\)/ });

    test("a token name the API refuses is named at the Name field", async ({ page }) => {
      await page.goto("/settings/tokens");
      await page.getByLabel("Name", { exact: true }).fill("   ");
      await page.getByRole("button", { name: "Create token" }).click();
      await expect(page.getByLabel("Name", { exact: true })).toHaveAccessibleDescription(/must not be empty/);
      await expect(page.getByLabel("New API token")).toHaveCount(0);
    });
  });
});

test.describe("configuration (read-only)", () => {
  test.use({ storageState: authFile("admin") });

  test("shows the ledger's model assignments, configuration values and workflow tables, and offers no way to change them", async ({
    page,
    ledger,
  }, testInfo) => {
    await page.goto("/settings/configuration");
    await expect(page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Configuration" })).toHaveAttribute(
      "aria-current",
      "page",
    );

    const models = ledger.prepare("SELECT agent_role, model FROM model_config ORDER BY agent_role").all() as { agent_role: string; model: string }[];
    expect(models.length).toBeGreaterThan(0);
    const modelTable = page.getByRole("table", { name: "Models by agent role" });
    await expect(modelTable.getByRole("row")).toHaveCount(models.length + 1);
    for (const { agent_role, model } of models) await expect(modelTable.getByRole("row").filter({ hasText: agent_role })).toContainText(model);

    const settings = ledger.prepare("SELECT key, value FROM configuration ORDER BY key").all() as { key: string; value: string }[];
    const configTable = page.getByRole("table", { name: "Configuration" });
    await expect(configTable.getByRole("row")).toHaveCount(settings.length + 1);
    for (const { key, value } of settings) {
      // JSON values are shown indented: compare their content, not their spacing.
      const shown = await configTable.getByRole("row").filter({ hasText: key }).locator("pre").textContent();
      expect(JSON.parse(shown ?? "")).toEqual(JSON.parse(value));
    }

    const transitions = ledger.prepare("SELECT current_agent, response_status, next_agent, action FROM workflow_transitions").all() as {
      current_agent: string;
      response_status: string;
      next_agent: string | null;
      action: string;
    }[];
    const transitionTable = page.getByRole("table", { name: /Workflow transitions/ });
    await expect(transitionTable.getByRole("row")).toHaveCount(transitions.length + 1);
    for (const t of transitions) {
      const row = transitionTable.getByRole("row").filter({ hasText: t.current_agent }).filter({ hasText: t.response_status });
      await expect(row).toContainText(t.action);
      if (t.next_agent) await expect(row).toContainText(t.next_agent);
    }
    const markers = ledger.prepare("SELECT agent_type, required_markers FROM agent_markers").all() as { agent_type: string; required_markers: string }[];
    for (const m of markers) {
      const row = page
        .getByRole("table", { name: /Markers each agent type/ })
        .getByRole("row")
        .filter({ hasText: m.agent_type });
      for (const marker of JSON.parse(m.required_markers) as string[]) await expect(row).toContainText(marker);
    }
    const rules = ledger.prepare("SELECT rule_name FROM workflow_special_rules").all() as { rule_name: string }[];
    for (const r of rules) await expect(page.getByRole("table", { name: "Special workflow rules" })).toContainText(r.rule_name);

    await expect(page.getByRole("main").getByRole("button")).toHaveCount(0);
    await expect(page.getByRole("main").getByRole("textbox")).toHaveCount(0);
    await screenshot(page, "settings-configuration", testInfo.project.name);
  });
});

test.describe("roles (read-only)", () => {
  test.use({ storageState: authFile("admin") });

  test("shows what each role may do, read from the permission table the server enforces", async ({ page }, testInfo) => {
    await page.goto("/settings/roles");
    await expect(page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Roles" })).toHaveAttribute("aria-current", "page");
    const table = page.getByRole("table", { name: "Each action and the roles that may take it" });
    const row = (does: string) => table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: does, exact: true }) });
    // The claim is an agent's (and the operator's); verifying is a judge's, never the claimant's.
    await expect(row("claim a task").getByLabel("agent may", { exact: true })).toBeVisible();
    await expect(row("claim a task").getByLabel("verifier may not", { exact: true })).toBeVisible();
    await expect(row("verify a task").getByLabel("verifier may", { exact: true })).toBeVisible();
    await expect(row("verify a task").getByLabel("agent may not", { exact: true })).toBeVisible();
    await expect(row("approve a reset of a task")).toContainText("task.approve_reset_role");
    await expect(row("approve a reset of a task").getByLabel("orchestrator may not", { exact: true })).toBeVisible();
    await expect(
      row("manage API tokens (agent tokens, and everyone's personal tokens: list and revoke)").getByLabel("lead may not", { exact: true }),
    ).toBeVisible();
    // A viewer changes nothing in the ledger; only their own personal API tokens.
    await expect(page.getByRole("definition").filter({ hasText: "reads everything; personal API tokens: all" })).toHaveCount(1);
    await expect(page.getByRole("main").getByRole("button")).toHaveCount(0);
    await screenshot(page, "settings-roles", testInfo.project.name);
  });
});

test.describe("as a lead", () => {
  test.use({ storageState: authFile("lead") });

  test("Settings is not offered, and opening it says only admins may", async ({ page }, testInfo) => {
    await page.goto("/");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Settings" })).toHaveCount(0);
    for (const path of ["/settings", "/settings/tokens", "/settings/roles", "/settings/configuration"]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Only admins can open Settings." })).toBeVisible();
      await expect(page.getByText(`You are signed in as ${emailOf("lead")} with the role lead.`)).toBeVisible();
      await expect(page.getByRole("table")).toHaveCount(0);
      await expect(page.getByRole("button", { name: /Create/ })).toHaveCount(0);
    }
    await screenshot(page, "settings-not-admin", testInfo.project.name);
  });
});
