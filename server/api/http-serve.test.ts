/**
 * http.test.ts's cases again, each request sent over a socket to `proofgate serve`'s own listener
 * for the API (server/serve/api-routes.ts) rather than to the fetch handler the Next route calls:
 * tokens, agent labels, cookie sessions, CSRF, errors and live streams behave the same on both paths.
 */
import { vi } from "vitest";

vi.hoisted(() => {
  process.env.PROOFGATE_TEST_VIA = "serve";
});

await import("./http.test");
