/**
 * toFormErrors against the real API: a tRPC client in the browser's shape (httpLink + superjson)
 * calls the real fetch handler on an in-memory database, so the errors are the ones the settings
 * forms receive.
 */
import { createTRPCClient, httpLink } from "@trpc/client";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import superjson from "superjson";
import { describe, expect, it, vi } from "vitest";
import { createMemoryDb } from "@/db/client";
import type { AppRouter } from "@/server/api/root";
import { appRouter } from "@/server/api/root";
import { ACTORS } from "@/test/support/api-helpers";
import { toFormErrors } from "./form-errors";

function adminClient() {
  const db = createMemoryDb();
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: "http://proofgate.test/api/trpc",
        transformer: superjson,
        fetch: (url, init) =>
          fetchRequestHandler({
            endpoint: "/api/trpc",
            req: new Request(String(url), init as RequestInit),
            router: appRouter,
            createContext: () => ({ db, actor: ACTORS.admin, via: "internal" as const, sameOrigin: true }),
          }),
      }),
    ],
  });
}

async function refusal(call: Promise<unknown>): Promise<unknown> {
  const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    await call;
  } catch (error) {
    return error;
  } finally {
    log.mockRestore();
  }
  throw new Error("the call was not refused");
}

const USER_FIELDS = ["email", "name", "password", "role"] as const;
const PASSWORD = "a-long-enough-password";

describe("toFormErrors", () => {
  it("puts a duplicate email at the Email field, through the rule the API names", async () => {
    const api = adminClient();
    await api.admin.createUser.mutate({ email: "ada@example.com", password: PASSWORD, role: "viewer" });
    const error = await refusal(api.admin.createUser.mutate({ email: "Ada@example.com", password: PASSWORD, role: "lead" }));
    expect(toFormErrors(error, USER_FIELDS, { "admin.user_exists": "email" })).toEqual({
      form: null,
      fields: { email: "a user with email ada@example.com already exists" },
    });
    // Without the mapping the same refusal is still shown, for the whole form.
    expect(toFormErrors(error, USER_FIELDS)).toEqual({ form: "a user with email ada@example.com already exists", fields: {} });
  });

  it("puts each bad input at its own field, with the rule it broke", async () => {
    const error = await refusal(adminClient().admin.createUser.mutate({ email: "not-an-email", password: "short", role: "viewer" }));
    expect(toFormErrors(error, USER_FIELDS)).toEqual({ form: null, fields: { email: "must be an email address", password: "must be at least 10 characters" } });
  });

  it("names a bad input the form has no field for in the form's message, never drops it", async () => {
    const error = await refusal(adminClient().admin.createToken.mutate({ name: " ", role: "agent", expiresInDays: 0 }));
    const errors = toFormErrors(error, ["name", "role"] as const);
    expect(errors.fields).toEqual({ name: "must not be empty" });
    expect(errors.form).toMatch(/^expiresInDays: /);
  });

  it("shows a refused rule that is about no field (the last admin) for the whole form", async () => {
    const api = adminClient();
    const admin = await api.admin.createUser.mutate({ email: "only-admin@example.com", password: PASSWORD, role: "admin" });
    const error = await refusal(api.admin.setUserRole.mutate({ userId: admin.id, role: "lead" }));
    expect(toFormErrors(error, ["role"] as const)).toEqual({ form: "the last admin cannot be demoted", fields: {} });
  });

  it("shows anything that is not an API error as it is", () => {
    expect(toFormErrors(new TypeError("Failed to fetch"), USER_FIELDS)).toEqual({ form: "Failed to fetch", fields: {} });
  });
});
