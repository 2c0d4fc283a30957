import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DomainError } from "@/server/domain/errors";

/** better-auth refuses shorter keys in production (and falls back to a public default on an empty one). */
const MIN_SECRET_LENGTH = 32;

/**
 * The key that signs sign-in cookies: `BETTER_AUTH_SECRET`, or one generated on first use and kept
 * beside the database file (mode 0600), so a fresh install works without configuration and
 * restarts keep people signed in. Never stored in the database, which admins can read.
 */
export function authSecret(dbPath: string): string {
  const fromEnv = process.env.BETTER_AUTH_SECRET;
  if (fromEnv && fromEnv.length >= MIN_SECRET_LENGTH) return fromEnv;
  if (dbPath === ":memory:") return randomBytes(32).toString("base64url");
  const file = `${path.resolve(dbPath)}.secret`;
  const existing = readSecret(file);
  if (existing?.valid) return existing.secret;
  return publishSecret(file, existing !== undefined);
}

/**
 * A PostgreSQL ledger used without `BETTER_AUTH_SECRET`: a setting to fix, refused as bad input
 * (exit 2, BAD_REQUEST) naming it, not an internal error (a local-mode `webhook add` met it first).
 */
export class AuthSecretMissingError extends DomainError {
  readonly kind = "validation" as const;
}

/**
 * The key on PostgreSQL: several servers share one database and must share the key, and there is
 * no database file to keep it beside, so it is `BETTER_AUTH_SECRET` (the same on every server),
 * never a value of the database's own.
 */
export function sharedAuthSecret(): string {
  const fromEnv = process.env.BETTER_AUTH_SECRET;
  if (fromEnv && fromEnv.length >= MIN_SECRET_LENGTH) return fromEnv;
  throw new AuthSecretMissingError(
    "config.auth_secret",
    `BETTER_AUTH_SECRET must be set (at least ${MIN_SECRET_LENGTH} characters, the same on every server) to use a PostgreSQL database: it signs sign-in cookies and seals webhook secrets, and is never kept in the database`,
  );
}

function readSecret(file: string): { secret: string; valid: boolean } | undefined {
  try {
    const secret = fs.readFileSync(file, "utf8").trim();
    return { secret, valid: secret.length >= MIN_SECRET_LENGTH };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Write a new key whole and durably to a private temporary file, then publish it under its name in
 * one step, so a crash or power loss leaves no key file or a complete one — never the empty file
 * that writing in place can leave, with which every page and sign-in failed until it was deleted.
 * `link` refuses to replace a key another process published first (that one is used); a file that
 * holds no usable key (from such a crash) is replaced: nothing was ever signed with it.
 */
function publishSecret(file: string, replaceInvalid: boolean): string {
  const secret = randomBytes(32).toString("base64url");
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = fs.openSync(temp, "wx", 0o600);
  try {
    fs.writeSync(fd, secret);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    if (replaceInvalid) fs.renameSync(temp, file);
    else fs.linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const winner = readSecret(file);
    if (!winner?.valid) throw new Error(`${file}: holds no usable sign-in key; delete it or set BETTER_AUTH_SECRET`);
    return winner.secret;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  syncFolder(path.dirname(file));
  return secret;
}

/** Make the new name itself durable (best effort: not every platform can fsync a folder). */
function syncFolder(folder: string): void {
  try {
    const fd = fs.openSync(folder, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Durable enough: the key file itself was synced.
  }
}
