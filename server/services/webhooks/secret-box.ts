import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { type Db, engineOf } from "@/db/client";
import { authSecret, sharedAuthSecret } from "@/server/auth/secret";

/**
 * Webhook signing secrets at rest: sealed with AES-256-GCM under a key derived (HKDF-SHA256) from
 * the instance's auth secret — `BETTER_AUTH_SECRET`, or the key file beside the database — which
 * never lives in the database file. A copy of the database alone does not reveal them; the server
 * and a local-mode CLI on the same file derive the same key.
 */
const keys = new WeakMap<object, Buffer>();

function keyOf(db: Db): Buffer {
  let key = keys.get(db.$client);
  if (!key) {
    const secret = engineOf(db) === "postgres" ? sharedAuthSecret() : authSecret(db.$client.name);
    key = Buffer.from(hkdfSync("sha256", secret, "proofgate", "webhook-secrets v1", 32));
    keys.set(db.$client, key);
  }
  return key;
}

export function sealSecret(db: Db, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(db), iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), sealed.toString("base64url")].join(".");
}

/** The secret, or an Error saying why it cannot be read (the instance's auth secret changed). */
export function openSecret(db: Db, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("the stored signing secret is not in a known format");
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(db), Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(
      "cannot decrypt the signing secret: the instance's auth secret (BETTER_AUTH_SECRET or the .secret file beside the database) changed since the webhook was created; re-create the webhook",
    );
  }
}
