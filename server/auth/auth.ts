import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { type Db, engineOf } from "@/db/client";
import { authAccounts, authSessions, authVerifications, users } from "@/db/schema";
import { databaseRateLimits } from "./rate-limit";

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
    // The site itself (whatever host it is served under) and any configured extra origins.
    trustedOrigins: (request) => [...(request ? [ownOrigin(request)] : []), ...(options.trustedOrigins ?? [])],
    telemetry: { enabled: false },
    database: drizzleAdapter(db, {
      // The ledger handle of a PostgreSQL database (db/pg/ledger.ts) is Drizzle's node-postgres database over the same tables.
      provider: engineOf(db) === "postgres" ? "pg" : "sqlite",
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
      customRules: { "/sign-in/email": { window: 60, max: signInLimit() } },
      // Counted in the database, so that several servers on one database share one count.
      customStorage: databaseRateLimits(db),
    },
    advanced: { cookiePrefix: "proofgate", defaultCookieAttributes: { httpOnly: true, sameSite: "lax" } },
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** The origin this request was addressed to, as a browser on this site would send it. */
function ownOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host") ?? url.host;
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? url.protocol.replace(":", "");
  return `${proto}://${host}`;
}

/**
 * Sign-in attempts allowed per minute and client address, across every server on the database: 5,
 * or `PROOFGATE_SIGNIN_LIMIT` (the browser tests sign in many times from one address).
 */
function signInLimit(): number {
  const configured = Number(process.env.PROOFGATE_SIGNIN_LIMIT);
  return Number.isInteger(configured) && configured > 0 ? configured : 5;
}
