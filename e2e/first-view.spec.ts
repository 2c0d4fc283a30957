import { expect, test } from "./fixtures";

/**
 * Each dashboard page's data is in the server's first HTML, in its place in the page: not a
 * skeleton waiting for a streamed part (`<template id="B:…">`), and not a part streamed into a
 * hidden `<div id="S:…">` for a script to move into place. React shows such a part up to 300 ms
 * after the rest of the page has been painted (it reveals streamed parts together), and moves any
 * Suspense boundary whose HTML passes 12.8 KB out of the page that way even when it was ready. The
 * demo sessions' boards, the overview and the analytics all pass 12.8 KB, so a page that read its
 * data inside a Suspense boundary, or did not wait for its reads before rendering, fails here.
 */
test("every dashboard page arrives with its data in place: no streamed part to reveal later", async ({ page, ledger }) => {
  const session = (
    ledger
      .prepare(
        `SELECT s.id FROM sessions s
         WHERE EXISTS (SELECT 1 FROM tasks t WHERE t.session_id = s.id)
           AND EXISTS (SELECT 1 FROM goals g WHERE g.session_id = s.id)
           AND EXISTS (SELECT 1 FROM token_usage u WHERE u.session_id = s.id)
         ORDER BY (SELECT count(*) FROM tasks t WHERE t.session_id = s.id) DESC LIMIT 1`,
      )
      .get() as { id: string }
  ).id;
  const pages: [string, string][] = [
    ["/", 'data-testid="tasks-total"'],
    ["/sessions", "data-session-id="],
    [`/sessions/${encodeURIComponent(session)}`, 'data-testid="column-pending"'],
    [`/sessions/${encodeURIComponent(session)}/goals`, 'data-testid="goal-totals"'],
    [`/sessions/${encodeURIComponent(session)}/tokens`, 'data-testid="token-total"'],
    ["/approvals", 'data-testid="inbox-count"'],
    ["/analytics", 'data-testid="analytics-figures"'],
    ["/activity", "data-event-id="],
  ];
  for (const [path, marker] of pages) {
    const response = await page.request.get(path);
    expect(response.status(), path).toBe(200);
    const html = await response.text();
    const main = html.slice(html.indexOf('<main id="main"'), html.indexOf("</main>"));
    // Booleans, so a failure names the page and the rule rather than printing the page.
    expect(main.includes(marker), `${path}: its data (${marker}) inside <main>`).toBe(true);
    expect(/<template id="B:\d+"/.test(html), `${path}: a part of the page left to stream (<template id="B:n">)`).toBe(false);
    expect(/<div hidden id="S:\d+"/.test(html), `${path}: a part streamed hidden, to be moved into place (<div hidden id="S:n">)`).toBe(false);
  }
});

/**
 * The HTML is on screen before the page's scripts have run, and a control used in between is not
 * React's yet: a filter changed then would be lost, and a form would submit natively — a GET that
 * puts its fields, a password included, in the address. With scripts off, the page stays in that
 * state: the filters are disabled and no form can be submitted.
 */
/**
 * The page's scripts and styles come from the copies the build compressed once
 * (scripts/compress-static.mjs, served by server/serve/static-assets.ts), not compressed again by
 * Next on each request: Brotli to a browser that takes it, cached for a year.
 */
test("a page's scripts and styles arrive Brotli-compressed from the build, cached for a year", async ({ page }) => {
  const assets: { url: string; encoding: string | undefined; cache: string | undefined; status: number }[] = [];
  page.on("response", (response) => {
    if (!new URL(response.url()).pathname.startsWith("/_next/static/")) return;
    const headers = response.headers();
    assets.push({ url: response.url(), encoding: headers["content-encoding"], cache: headers["cache-control"], status: response.status() });
  });
  await page.goto("/sessions");
  await expect(page.locator("main tr[data-session-id]").first()).toBeVisible();
  const scripts = assets.filter((asset) => /\.(js|css)$/.test(new URL(asset.url).pathname));
  expect(scripts.length).toBeGreaterThan(3);
  for (const asset of scripts) {
    expect(asset.status, asset.url).toBe(200);
    expect(asset.encoding, asset.url).toBe("br");
    expect(asset.cache, asset.url).toBe("public, max-age=31536000, immutable");
  }
});

test.describe("before the page's scripts have run", () => {
  // Chromium with scripts off cancels the page's preloaded script chunks: those failures are expected.
  test.use({ javaScriptEnabled: false, expectedConsoleErrors: /^request failed: .*\/_next\/static\/chunks\// });

  test("the analytics, sessions and logs filters are disabled, so a change cannot be lost", async ({ page, ledger }) => {
    const session = (ledger.prepare("SELECT session_id AS id FROM orchestration_logs LIMIT 1").get() as { id: string }).id;
    await page.goto("/analytics");
    await expect(page.getByTestId("analytics-figures")).toBeVisible();
    await expect(page.getByRole("search", { name: "Filter analytics" }).getByLabel("Group by")).toBeDisabled();
    await page.goto("/sessions");
    await expect(page.locator("tr[data-session-id]").first()).toBeVisible();
    await expect(page.getByRole("search", { name: "Filter sessions" }).getByLabel("Search")).toBeDisabled();
    await page.goto(`/sessions/${encodeURIComponent(session)}/logs`);
    await expect(page.getByRole("search", { name: "Filter logs" }).getByLabel("Agent")).toBeDisabled();
  });

  test("how long a task has waited and how long ago things happened are in the first HTML, as the scripts show them", async ({ page }) => {
    await page.goto("/approvals");
    // The server counts from when it rendered the page; the browser then counts on from there, so
    // the text keeps its length and nothing under it moves when the scripts start.
    const waited = page.getByTestId("waited").first();
    await expect(waited).toHaveText(/^waiting \d+(s|m|h \d+m|d \d+h)$/);
    // The time itself stays a hover away, in UTC.
    const time = waited.locator("time");
    const at = await time.getAttribute("datetime");
    expect(at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    await expect(time).toHaveAttribute("title", `${at!.replace("T", " ").slice(0, 16)} UTC`);
    await page.goto("/activity");
    await expect(page.locator("main time").first()).toHaveText(/^\d+(s|m|h \d+m|d \d+h) ago$/);
  });

  test.describe("signed out", () => {
    test.use({ storageState: { cookies: [], origins: [] } });

    test("the sign-in form cannot be submitted, so a password is never sent in the address", async ({ page }) => {
      await page.goto("/sign-in");
      await page.getByLabel("Email").fill("lead@proofgate.test");
      await page.getByLabel("Password").fill("not-in-the-address");
      await expect(page.getByRole("button", { name: "Sign in" })).toBeDisabled();
      await page.getByLabel("Password").press("Enter");
      await page.waitForLoadState();
      expect(page.url()).not.toContain("not-in-the-address");
      await expect(page.getByLabel("Password")).toHaveValue("not-in-the-address");
    });
  });
});
