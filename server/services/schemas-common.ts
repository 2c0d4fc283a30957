import { z } from "zod";
import { redactSecrets } from "@/server/domain/redact";

/** Shared input pieces. Limits keep a single field from flooding the database. */
export const MAX_TEXT = 100_000;
export const MAX_LABEL = 200;

/** Secrets recognised by their format (not `name=value` wording, which a title may use innocently). */
const FORMAT_SECRETS = new Set(["anthropic_key", "openai_key", "github_token", "aws_access_key_id", "aws_secret_access_key", "bearer_token", "private_key"]);
/**
 * Identifiers and names are not redacted (they must keep finding their rows): one that holds a
 * secret is refused instead, so the secret is stored nowhere.
 */
const noSecret = {
  check: (text: string) => !redactSecrets(text).kinds.some((kind) => FORMAT_SECRETS.has(kind)),
  message: "must not contain a secret (an API key, token or private key): keep secrets out of the ledger",
};

export const SessionId = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(MAX_LABEL)
  .regex(/^[A-Za-z0-9._:-]+$/, "may contain only letters, digits and . _ : -")
  .refine(noSecret.check, noSecret.message);
export const Label = z.string().trim().min(1, "must not be empty").max(MAX_LABEL).refine(noSecret.check, noSecret.message);
export const Text = z.string().max(MAX_TEXT);

/** Characters of one free-form JSON field (metadata, flags, references) once serialized. */
export const MAX_JSON_CHARS = MAX_TEXT;

/** Length of a value as stored JSON text; one JSON cannot hold (a cycle, a BigInt) counts as too long. */
export function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

const fitsJson = { message: `must be at most ${MAX_JSON_CHARS} characters as JSON` };
export const JsonObject = z.record(z.string(), z.unknown()).refine((value) => jsonLength(value) <= MAX_JSON_CHARS, fitsJson);
/** A JSON array of free-form items, with the same limit. */
export const JsonArray = z.array(z.unknown()).refine((value) => jsonLength(value) <= MAX_JSON_CHARS, fitsJson);
