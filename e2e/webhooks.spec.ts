// flake-risks time: a unique name, nothing more: any value unlike another run's will do
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { expect, screenshot, test } from "./fixtures";
import { authFile, emailOf } from "./users";

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A real receiver in the test process: the server's dispatcher POSTs to it. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

test.describe("as an admin", () => {
  test.use({ storageState: authFile("admin"), expectedConsoleErrors: /status of 400 \(Bad Request\)/ });

  test("adds a webhook (its secret shown once), sends a signed test that shows in the delivery log, and removes it after confirming @mobile", async ({
    page,
    ledger,
  }, testInfo) => {
    const receiver = await startReceiver();
    try {
      await page.goto("/settings");
      await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Webhooks" }).click();
      await expect(page).toHaveURL(/\/settings\/webhooks$/);
      const urlField = page.getByLabel("Receiver URL");

      // A URL the API refuses is named at its field, and nothing is written.
      const before = (ledger.prepare("SELECT count(*) AS n FROM webhook_subscriptions").get() as { n: number }).n;
      await urlField.fill("ftp://files.example.com/drop");
      await page.getByRole("button", { name: "Add webhook" }).click();
      await expect(urlField).toHaveAccessibleDescription(/must use http or https, not ftp/);
      await expect(urlField).toHaveAttribute("aria-invalid", "true");
      expect(ledger.prepare("SELECT count(*) AS n FROM webhook_subscriptions").get()).toEqual({ n: before });

      const url = `${receiver.url}?project=${testInfo.project.name}-${Date.now()}`;
      await urlField.fill(url);
      await page.getByLabel("All events, including ones added later").uncheck();
      await page.getByLabel(/a task was blocked/).check();
      await page.getByLabel(/a completion check was rejected/).check();
      await page.getByRole("button", { name: "Add webhook" }).click();
      await expect(page.getByRole("main").getByRole("alert")).toContainText("This is the only time Proofgate shows this secret.");
      const secret = await page.getByLabel("Signing secret", { exact: true }).inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const stored = ledger.prepare("SELECT id, events, all_events, secret_sealed FROM webhook_subscriptions WHERE url = ?").get(url) as {
        id: number;
        events: string;
        all_events: number;
        secret_sealed: string;
      };
      expect(JSON.parse(stored.events)).toEqual(["task.blocked", "completion.rejected"]);
      expect(stored.secret_sealed).not.toContain(secret.slice(6, 20));
      await screenshot(page, "settings-webhook-created", testInfo.project.name);

      // Dismissed, the secret is gone from the page for good; the webhook is listed.
      await page.getByRole("button", { name: "I have saved it" }).click();
      await expect(page.getByText(secret)).toHaveCount(0);
      const item = page.getByRole("listitem", { name: `Webhook #${stored.id}` });
      await expect(item).toContainText(url);
      await expect(item).toContainText("task.blocked, completion.rejected");

      // A test delivery: signed, received, and logged as delivered with the receiver's answer.
      await item.getByRole("button", { name: `Send a test to webhook #${stored.id}` }).click();
      await expect(page.getByText(`queued for webhook #${stored.id}`)).toBeVisible();
      const log = page.getByRole("region", { name: `Delivery log of webhook #${stored.id}` });
      await expect(log.getByRole("row").filter({ hasText: "webhook.test" })).toContainText("delivered", { timeout: 15_000 });
      await expect(log).toContainText("HTTP 204");
      await expect(log).toContainText("Delivered and failed deliveries are kept 30 days after their last attempt");
      const test = receiver.received.find((r) => r.body.includes('"webhook.test"'));
      expect(new Webhook(secret).verify(test!.body, test!.headers)).toMatchObject({ type: "webhook.test", data: { entity: "webhook" } });
      await expect(item).toContainText("1 delivered · 0 pending · 0 failed");
      await screenshot(page, "settings-webhooks", testInfo.project.name);

      // Removing asks first; then the webhook and its log are gone.
      await item.getByRole("button", { name: `Remove webhook #${stored.id}` }).click();
      const dialog = page.getByRole("dialog", { name: "Remove this webhook?" });
      await expect(dialog).toContainText("Nothing more is sent to");
      expect(ledger.prepare("SELECT count(*) AS n FROM webhook_subscriptions WHERE id = ?").get(stored.id)).toEqual({ n: 1 });
      await dialog.getByRole("button", { name: "Remove webhook" }).click();
      await expect(dialog).toBeHidden();
      await expect(item).toHaveCount(0);
      expect(ledger.prepare("SELECT count(*) AS n FROM webhook_subscriptions WHERE id = ?").get(stored.id)).toEqual({ n: 0 });
    } finally {
      await receiver.close();
    }
  });
});

for (const role of ["lead", "viewer"] as const) {
  test.describe(`as a ${role}`, () => {
    test.use({ storageState: authFile(role), expectedConsoleErrors: /status of 403 \(Forbidden\)/ });

    test("the Webhooks tab is not offered, and the server refuses the API if forced", async ({ page, ledger }) => {
      await page.goto("/settings/webhooks");
      await expect(page.getByRole("heading", { name: "Only admins can open Settings." })).toBeVisible();
      await expect(page.getByText(`You are signed in as ${emailOf(role)} with the role ${role}.`)).toBeVisible();
      await expect(page.getByRole("link", { name: "Webhooks" })).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Add webhook" })).toHaveCount(0);

      const before = ledger.prepare("SELECT count(*) AS n FROM webhook_subscriptions").get();
      const forced = await page.request.post("/api/trpc/admin.createWebhook", {
        data: { json: { url: "https://attacker.example.com/hook", events: "all" } },
      });
      expect(forced.status()).toBe(403);
      expect(await forced.text()).toContain(`role ${role} may not call admin.createWebhook`);
      expect((await page.request.get("/api/trpc/admin.webhooks")).status()).toBe(403);
      expect(ledger.prepare("SELECT count(*) AS n FROM webhook_subscriptions").get()).toEqual(before);
    });
  });
}
