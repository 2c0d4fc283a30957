import { getDb, resolveDbPath } from "@/db/client";
import { type Auth, createAuth } from "./auth";
import { authSecret } from "./secret";

let shared: Auth | undefined;

/** The process-wide better-auth instance, on the process-wide database (created on first use). */
export function getAuth(): Auth {
  shared ??= createAuth(getDb(), {
    secret: authSecret(resolveDbPath()),
    baseURL: process.env.PROOFGATE_URL,
    trustedOrigins: process.env.PROOFGATE_TRUSTED_ORIGINS?.split(",")
      .map((o) => o.trim())
      .filter(Boolean),
  });
  return shared;
}
