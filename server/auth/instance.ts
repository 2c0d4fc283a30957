import { engineOf, getDb, resolveLedger } from "@/db/client";
import { type Auth, createAuth } from "./auth";
import { authSecret, sharedAuthSecret } from "./secret";

let shared: Auth | undefined;

/** The process-wide better-auth instance, on the process-wide database (created on first use). */
export function getAuth(): Auth {
  const db = getDb();
  shared ??= createAuth(db, {
    // Several servers on one PostgreSQL database must sign cookies with one key: BETTER_AUTH_SECRET.
    secret: engineOf(db) === "postgres" ? sharedAuthSecret() : authSecret(resolveLedger()),
    baseURL: process.env.PROOFGATE_URL,
    trustedOrigins: process.env.PROOFGATE_TRUSTED_ORIGINS?.split(",")
      .map((o) => o.trim())
      .filter(Boolean),
  });
  return shared;
}
