/**
 * Every response of `proofgate serve` carries the security headers (server/serve/security-headers.ts,
 * issue 30 item 8), and the dashboard still works under its Content-Security-Policy: every page in
 * app/, in light and dark, renders with this response's nonce on its scripts, runs them (hydrates,
 * follows a link with React's router) and reports no violation; so do the 404, the API, downloads,
 * static files and the 421 host refusal.
 */
// flake-risks port: the fresh install's server needs a port of its own; one the kernel handed out and closed, taken by nothing else on this machine that listens on ephemeral ports
import { readdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { APIResponse, Page, Response } from "@playwright/test";
import { closedPort, removeWorkspaces, start, until, workspace } from "./cli-helpers";
import { expect, hydrated, test } from "./fixtures";
import { E2E_PASSWORD, authFile, emailOf } from "./users";

/** Every page of app/ as its URL path (route groups left out), with the route group it sits in. */
function pagesInApp(): { route: string; group: string | null }[] {
  const root = path.resolve("app");
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((file) => path.basename(file) === "page.tsx")
    .map((file) => {
      const parts = path
        .dirname(file)
        .split(path.sep)
        .filter((part) => part !== ".");
      const group = parts.find((part) => /^\(.*\)$/.test(part)) ?? null;
      return { route: `/${parts.filter((part) => !/^\(.*\)$/.test(part)).join("/")}`, group };
    })
    .sort((a, b) => a.route.localeCompare(b.route));
}

const PAGES = pagesInApp();
/** Checked signed in as an admin, who sees every one of them. */
const DASHBOARD_ROUTES = PAGES.filter((page) => page.group === "(dashboard)").map((page) => page.route);
/** The pages outside the dashboard, each with a test of its own below. */
const OTHER_ROUTES = ["/setup", "/sign-in"];

/** What a response must carry: the policy with a script nonce, nosniff, same-origin referrers; HSTS only when PROOFGATE_URL is https. */
function expectSecurityHeaders(response: Response | APIResponse | http.IncomingMessage, what: string, { hsts = false } = {}): string {
  const headers = "headers" in response && typeof response.headers === "function" ? response.headers() : (response as http.IncomingMessage).headers;
  const policy = String(headers["content-security-policy"] ?? "");
  for (const directive of ["default-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "connect-src 'self'"])
    expect(policy, `${what}: ${directive}`).toContain(directive);
  const scriptSrc =
    policy
      .split(";")
      .map((directive) => directive.trim())
      .find((directive) => directive.startsWith("script-src ")) ?? "";
  expect(scriptSrc, `${what}: scripts from this origin with the nonce only, no inline or eval`).toMatch(
    /^script-src 'self' 'nonce-[A-Za-z0-9+/]+={0,2}' 'strict-dynamic'$/,
  );
  expect(headers["x-content-type-options"], what).toBe("nosniff");
  expect(headers["referrer-policy"], what).toBe("same-origin");
  if (hsts) expect(headers["strict-transport-security"], `${what}: HSTS, PROOFGATE_URL being https`).toBe("max-age=63072000; includeSubDomains");
  else expect(headers["strict-transport-security"], `${what}: no HSTS when PROOFGATE_URL is not https`).toBeUndefined();
  return /'nonce-([^']+)'/.exec(scriptSrc)![1]!;
}

/**
 * Collects what the browser reports against the policy: `securitypolicyviolation` events (an init
 * script, which the policy does not govern), console messages about the policy, and uncaught page
 * errors (a blocked script's dependants fail). The `consoleErrors` fixture fails on any console
 * error as well; this names the policy's reports in the failure.
 */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const seen: string[] = [];
  page.on("console", (message) => {
    if (/Content[- ]Security[- ]Policy|Refused to/i.test(message.text())) seen.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => seen.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) =>
      w.cspViolations.push(`violation: ${event.effectiveDirective} ${event.blockedURI} (${event.sourceFile}:${event.lineNumber})`),
    );
  });
  return async () => [
    ...seen,
    ...(await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? ["the init script did not run"])),
  ];
}

/** Every script tag of the page's HTML carries this response's nonce (a prerendered page would carry none). */
async function expectNoncedScripts(response: Response, nonce: string, what: string) {
  const tags = (await response.text()).match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length, `${what}: scripts in the HTML`).toBeGreaterThan(0);
  expect(
    tags.filter((tag) => !tag.includes(` nonce="${nonce}"`)),
    `${what}: scripts without this response's nonce`,
  ).toEqual([]);
}

/** A request with a Host of our choosing (a browser and fetch() set their own). */
function get(base: string, pathname: string, host: string) {
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(new URL(pathname, base), { headers: { host } }, (res) => resolve(res.resume())).on("error", reject);
  });
}

test("every page in app/ is checked here", () => {
  expect(DASHBOARD_ROUTES, "the dashboard's pages").toContain("/");
  expect(
    PAGES.filter((page) => page.group !== "(dashboard)").map((page) => page.route),
    "pages outside app/(dashboard), which the loop below does not visit: give a new one a test here",
  ).toEqual(OTHER_ROUTES);
});

test.describe("as an admin (who sees every page)", () => {
  test.use({ storageState: authFile("admin") });

  for (const colorScheme of ["light", "dark"] as const) {
    for (const route of DASHBOARD_ROUTES) {
      test(`${route} (${colorScheme}): headers, nonced scripts, hydrated, no policy violation`, async ({ page, ledger }) => {
        const session = (ledger.prepare("SELECT id FROM sessions ORDER BY id LIMIT 1").get() as { id: string }).id;
        const url = route.replace("[id]", encodeURIComponent(session));
        expect(url, "a dynamic segment this spec has no value for").not.toContain("[");
        await page.emulateMedia({ colorScheme });
        const violations = await watchViolations(page);
        const stream = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/trpc/events.stream");
        const response = await page.goto(url);
        expect(response?.status(), url).toBe(200);
        const nonce = expectSecurityHeaders(response!, url);
        await expectNoncedScripts(response!, nonce, url);
        // The live stream (an EventSource) is connected: the page's scripts ran and connect-src allows it.
        await hydrated(page);
        expectSecurityHeaders(await stream, `${url}: its live stream`);
        // A link followed by React's router, not by a new page load: this window's mark survives.
        await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
        const [link, target] = route === "/account" ? ["Overview", "/"] : ["Account", "/account"];
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link, exact: true }).click();
        await expect(page).toHaveURL(target);
        await hydrated(page);
        expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
        expect(await violations()).toEqual([]);
      });
    }
  }

  test.describe("what the checks above would see", () => {
    test.use({ expectedConsoleErrors: /Content Security Policy/ });
    test("the policy is enforced and its violations are seen: an injected inline event handler does not run and is reported", async ({ page }) => {
      const violations = await watchViolations(page);
      await page.goto("/account");
      await hydrated(page);
      // (A script element added by a script would run: 'strict-dynamic' trusts what trusted scripts add.)
      await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", `<img alt="" src="data:," onerror="window.injected = true">`));
      await expect
        .poll(violations)
        .toEqual([
          expect.stringMatching(/^console: Executing inline event handler violates the following Content Security Policy directive 'script-src /),
          expect.stringMatching(/^violation: script-src-attr inline/),
        ]);
      expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
    });
  });

  test.describe("a page that does not exist", () => {
    // The 404 of the document itself is reported in the console; nothing else may be.
    test.use({ expectedConsoleErrors: /the server responded with a status of 404/ });
    for (const colorScheme of ["light", "dark"] as const) {
      test(`the 404 page (${colorScheme}): headers, nonced scripts that run, no policy violation`, async ({ page }) => {
        await page.emulateMedia({ colorScheme });
        const violations = await watchViolations(page);
        const response = await page.goto("/no-such-page");
        expect(response?.status()).toBe(404);
        const nonce = expectSecurityHeaders(response!, "the 404 page");
        await expectNoncedScripts(response!, nonce, "the 404 page");
        // Next's client bootstrap ran (it sets window.next), so the nonced scripts were allowed.
        await expect.poll(() => page.evaluate(() => (window as unknown as { next?: { appDir?: boolean } }).next?.appDir)).toBe(true);
        expect(await violations()).toEqual([]);
      });
    }
  });

  test("the API's answers carry the headers too: tRPC, auth, MCP, hooks, a download, a static script, a redirect, the 421; each response its own nonce", async ({
    page,
  }, testInfo) => {
    const trpc = await page.request.get("/api/trpc/session.list?input=%7B%22json%22%3A%7B%7D%7D");
    expect(trpc.status()).toBe(200);
    const first = expectSecurityHeaders(trpc, "tRPC");
    const again = expectSecurityHeaders(await page.request.get("/api/trpc/session.list?input=%7B%22json%22%3A%7B%7D%7D"), "tRPC again");
    expect(again, "a nonce per response").not.toBe(first);
    const auth = await page.request.get("/api/auth/get-session");
    expect(auth.status()).toBe(200);
    expectSecurityHeaders(auth, "/api/auth");
    const csv = await page.request.get("/api/activity/csv?type=task.claimed");
    expect(csv.status()).toBe(200);
    expectSecurityHeaders(csv, "the activity CSV");
    const mcp = await page.request.post("/api/mcp", { data: {} });
    expect(mcp.status()).toBe(401);
    expectSecurityHeaders(mcp, "/api/mcp (refused without a token)");
    const hook = await page.request.get("/api/hooks/claude-code");
    expect(hook.status()).toBe(405);
    expectSecurityHeaders(hook, "/api/hooks (wrong method)");
    const html = await (await page.request.get("/")).text();
    const script = /<script src="(\/_next\/static\/[^"]+)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const asset = await page.request.get(script!);
    expect(asset.status()).toBe(200);
    expectSecurityHeaders(asset, "a static script");
    const setup = await page.request.get("/setup", { maxRedirects: 0 });
    expect(setup.status()).toBe(307);
    expectSecurityHeaders(setup, "/setup (a redirect once someone exists)");
    const base = testInfo.project.use.baseURL!;
    const refused = await get(base, "/", `evil.example:${new URL(base).port}`);
    expect(refused.statusCode).toBe(421);
    expectSecurityHeaders(refused, "the 421 host refusal");
  });
});

test.describe("signed out", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  for (const colorScheme of ["light", "dark"] as const) {
    test(`the sign-in page (${colorScheme}): headers, nonced scripts, signing in works, no policy violation`, async ({ page }) => {
      await page.emulateMedia({ colorScheme });
      const violations = await watchViolations(page);
      const response = await page.goto("/sign-in");
      expect(response?.status()).toBe(200);
      const nonce = expectSecurityHeaders(response!, "/sign-in");
      await expectNoncedScripts(response!, nonce, "/sign-in");
      await page.getByLabel("Email").fill(emailOf("viewer"));
      await page.getByLabel("Password").fill(E2E_PASSWORD);
      const signIn = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/auth/sign-in/email");
      await page.getByRole("button", { name: "Sign in" }).click();
      expectSecurityHeaders(await signIn, "the sign-in request");
      await expect(page.getByTestId("signed-in-as")).toContainText(`${emailOf("viewer")} · viewer`);
      expect(await violations()).toEqual([]);
    });
  }

  test.describe("a fresh install behind TLS (PROOFGATE_URL https)", () => {
    test.describe.configure({ mode: "serial" });
    let server: ReturnType<typeof start> | undefined;
    let base = "";
    test.beforeAll(async ({}, testInfo) => {
      test.skip(testInfo.project.name !== "desktop", "one fresh server is enough");
      const port = await closedPort();
      base = `http://127.0.0.1:${port}`;
      // The browser reaches it on a loopback name, which the host allow-list accepts beside PROOFGATE_URL's.
      server = start(["--db", path.join(workspace(), "fresh.db"), "serve", "--port", String(port)], { PROOFGATE_URL: "https://proofgate.example" });
      await until(() => server!.stdout().includes("Proofgate on"), "the fresh server to listen", 60_000).catch(async (error: Error) => {
        const result = await server!.interrupt();
        throw new Error(`${error.message}\n${result.stdout}${result.stderr}`);
      });
    });
    test.afterAll(async () => {
      await server?.interrupt();
      removeWorkspaces();
    });

    for (const colorScheme of ["light", "dark"] as const) {
      test(`the setup page (${colorScheme}): headers with HSTS, nonced scripts that run, no policy violation`, async ({ page }) => {
        await page.emulateMedia({ colorScheme });
        const violations = await watchViolations(page);
        const response = await page.goto(`${base}/setup`);
        expect(response?.status()).toBe(200);
        const nonce = expectSecurityHeaders(response!, "/setup", { hsts: true });
        await expectNoncedScripts(response!, nonce, "/setup");
        // The form's own check answers (a script), not a reload by the browser's plain form submit.
        await page.getByLabel("Email").fill("first@example.com");
        await page.getByLabel("Password", { exact: true }).fill("a-long-password");
        await page.getByLabel("Confirm password").fill("a-different-one");
        await page.getByRole("button", { name: "Create admin account" }).click();
        await expect(page.locator("form").getByRole("alert")).toContainText("the two passwords differ");
        expectSecurityHeaders(await page.request.get(`${base}/api/trpc/setup.status`), "the API, behind TLS", { hsts: true });
        expect(await violations()).toEqual([]);
      });
    }
  });
});
