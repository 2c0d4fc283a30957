/**
 * Personal API tokens (issue 20, item 5): a viewer opens their account page from the header,
 * creates a token that is shown once, calls the API with it from outside the browser (tRPC, the
 * audit log's CSV, MCP and, in the desktop project, the command line's remote mode), revokes it,
 * and the next call is refused 401. A viewer is offered no admin tab and cannot open one; an
 * admin sees the personal token in Settings → API tokens with its owner.
 */
import { proofgate, uniqueId } from "./cli-helpers";
import { expect, screenshot, test } from "./fixtures";
import { authFile, emailOf } from "./users";

const PORT = Number(process.env.PROOFGATE_E2E_PORT);
const URL = `http://127.0.0.1:${PORT}`;

test.describe.configure({ mode: "serial", timeout: 90_000 });

/** A tRPC query from outside the browser (no cookies): only the bearer token speaks for the caller. */
async function apiQuery(token: string, procedure: string, input: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${URL}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function apiMutation(token: string, procedure: string, input: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${URL}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ json: input }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

let tokenName: string;

test.describe("as a viewer", () => {
  // The blank name is refused by the server on purpose (400), which the browser logs.
  test.use({ storageState: authFile("viewer"), expectedConsoleErrors: /status of 400 \(Bad Request\) \(.*\/api\/trpc\/account\.createToken/ });

  test("creates a personal token, sees it once, uses it, revokes it, and the next call gets 401 @mobile", async ({ page, ledger }, testInfo) => {
    tokenName = uniqueId(`viewer script ${testInfo.project.name}`);
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Settings" })).toHaveCount(0);
    await nav.getByRole("link", { name: "Account" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
    await expect(page.getByText(`Signed in as ${emailOf("viewer")} with the role viewer.`)).toBeVisible();

    const form = page.getByRole("region", { name: "Create a personal API token" });
    // Bad input is refused at the field, naming it; nothing is created.
    await form.getByLabel("Name").fill("   ");
    await form.getByRole("button", { name: "Create token" }).click();
    await expect(form.getByText("must not be empty")).toBeVisible();
    expect(ledger.prepare("SELECT count(*) AS n FROM api_tokens WHERE name = ?").get(tokenName)).toEqual({ n: 0 });

    await form.getByLabel("Name").fill(tokenName);
    await form.getByLabel("Expires in (days)").fill("30");
    await form.getByRole("button", { name: "Create token" }).click();
    const panel = page.getByRole("region", { name: "Copy the new token now" });
    await expect(panel.getByRole("alert")).toContainText("This is the only time Proofgate shows this token.");
    await expect(panel.getByRole("button", { name: "Copy token" })).toBeVisible();
    const token = await panel.getByLabel("New API token").inputValue();
    expect(token).toMatch(/^pg_[A-Za-z0-9_-]{43}$/);
    // Stored as the viewer's, without a role of its own, and never in clear.
    const stored = ledger
      .prepare("SELECT t.role, u.email, t.token_hash FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.name = ?")
      .get(tokenName) as {
      role: string | null;
      email: string;
      token_hash: string;
    };
    expect({ role: stored.role, email: stored.email }).toEqual({ role: null, email: emailOf("viewer") });
    expect(stored.token_hash).not.toContain(token.slice(3));
    await screenshot(page, "account-token-created", testInfo.project.name);

    // Shown once: after "I have saved it" (or a reload) the text is nowhere on the page.
    await panel.getByRole("button", { name: "I have saved it" }).click();
    await expect(page.getByLabel("New API token")).toHaveCount(0);
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: tokenName }) });
    await expect(row).toContainText("never");
    await expect(row).toContainText("active");
    expect(await page.content()).not.toContain(token);

    // The token reads, as the viewer…
    const read = await apiQuery(token, "session.list", {});
    expect(read.status).toBe(200);
    // …but the viewer's role writes nothing, and the refusal names the rule.
    const write = await apiMutation(token, "session.create", { id: uniqueId("e2e-viewer-token") });
    expect(write.status).toBe(403);
    expect(JSON.stringify(write.body)).toContain("session.create_role");
    // The audit log's CSV and MCP take it like any token.
    const csv = await fetch(`${URL}/api/activity/csv?type=account.token_created`, { headers: { authorization: `Bearer ${token}` } });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain(`${emailOf("viewer")} created personal API token ${tokenName}`);
    const mcp = await fetch(`${URL}/api/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(mcp.status).toBe(200);
    if (testInfo.project.name === "desktop") {
      const cli = await proofgate(["--url", URL, "--token", token, "--json", "list-sessions", "1"]);
      expect(cli.code, cli.stderr).toBe(0);
    }

    // Last used is shown once the page is read again.
    await page.reload();
    await expect(row).not.toContainText("never");
    await expect(row).toContainText("ago");
    await screenshot(page, "account-tokens", testInfo.project.name);

    await row.getByRole("button", { name: `Revoke ${tokenName}` }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this token?" });
    await expect(dialog).toContainText("stops working at once");
    await dialog.getByRole("button", { name: "Revoke token" }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText("revoked");
    await expect(row.getByRole("button", { name: `Revoke ${tokenName}` })).toHaveCount(0);

    const after = await apiQuery(token, "session.list", {});
    expect(after.status).toBe(401);
    expect(JSON.stringify(after.body)).toContain("auth.token");
  });

  test("is offered no admin tab and cannot open one", async ({ page }, testInfo) => {
    await page.goto("/account");
    await expect(page.getByRole("navigation", { name: "Settings sections" })).toHaveCount(0);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" })).toHaveCount(0);
    for (const path of ["/settings", "/settings/tokens"]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { name: "Only admins can open Settings." })).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Settings sections" })).toHaveCount(0);
      await expect(page.getByRole("table")).toHaveCount(0);
    }
    await screenshot(page, "account-viewer-settings-refused", testInfo.project.name);
    await page.getByRole("main").getByRole("link", { name: "Account" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
  });
});

test.describe("as an admin", () => {
  test.use({ storageState: authFile("admin") });

  test("sees a person's token in Settings → API tokens, with its owner", async ({ page }, testInfo) => {
    await page.goto("/settings/tokens");
    const row = page.getByRole("row").filter({ hasText: tokenName });
    await expect(row).toContainText(`personal token of ${emailOf("viewer")}`);
    await expect(row).toContainText("viewer");
    await expect(row).toContainText("revoked");
    await screenshot(page, "settings-tokens-personal", testInfo.project.name);
  });
});
