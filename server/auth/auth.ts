import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Db } from "@/db/client";
import { authAccounts, authSessions, authVerifications, users } from "@/db/schema";

export const SESSION_MAX_AGE_SECONDS = 60 * 60 * 24 * 7;

/**
 * Sign-in for people (email + password) via better-auth: password hashing, signed HttpOnly
 * cookies (Secure behind HTTPS), sign-in rate limits, origin checks on its endpoints. Accounts are
 * created by an admin or by the first-run setup, never by open sign-up. Telemetry is off.
 */
export function createAuth(db: Db, options: { secret: string; baseURL?: string; trustedOrigins?: string[] }) {
  return betterAuth({
    appName: "Proofgate",
    secret: options.secret,
    baseURL: options.baseURL,
    trustedOrigins: options.trustedOrigins,
    telemetry: { enabled: false },
    database: drizzleAdapter(db, {
      provider: "sqlite",
      schema: { users, auth_sessions: authSessions, auth_accounts: authAccounts, auth_verifications: authVerifications },
    }),
    user: {
      modelName: "users",
      additionalFields: { role: { type: "string", required: false, defaultValue: "viewer", input: false } },
    },
    session: { modelName: "auth_sessions", expiresIn: SESSION_MAX_AGE_SECONDS },
    account: { modelName: "auth_accounts" },
    verification: { modelName: "auth_verifications" },
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 10, maxPasswordLength: 256 },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 100,
      customRules: { "/sign-in/email": { window: 60, max: 5 } },
    },
    advanced: { cookiePrefix: "proofgate", defaultCookieAttributes: { httpOnly: true, sameSite: "lax" } },
  });
}

export type Auth = ReturnType<typeof createAuth>;
