import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The key that signs sign-in cookies: `BETTER_AUTH_SECRET`, or one generated on first use and kept
 * beside the database file (mode 0600), so a fresh install works without configuration and
 * restarts keep people signed in. Never stored in the database, which admins can read.
 */
export function authSecret(dbPath: string): string {
  const fromEnv = process.env.BETTER_AUTH_SECRET;
  if (fromEnv && fromEnv.length >= 32) return fromEnv;
  if (dbPath === ":memory:") return randomBytes(32).toString("base64url");
  const file = `${path.resolve(dbPath)}.secret`;
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    const secret = randomBytes(32).toString("base64url");
    try {
      fs.writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
      return secret;
    } catch {
      // Another process wrote it first.
      return fs.readFileSync(file, "utf8").trim();
    }
  }
}
