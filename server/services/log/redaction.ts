import { redactJson, redactSecrets } from "@/server/domain/redact";

/** A value on its way into the ledger, with whether any secret was replaced in it. */
export interface Redacted<T> {
  value: T;
  redacted: boolean;
}

/** Log text with its secrets replaced by `[REDACTED:<kind>]`. */
export function redactText(text: string): Redacted<string> {
  const result = redactSecrets(text);
  return { value: result.text, redacted: result.redacted };
}

/** Each reference (a path or link) redacted; an empty list is stored as null. */
export function redactReferences(references: readonly string[] | null | undefined): Redacted<string[] | null> {
  if (!references || references.length === 0) return { value: null, redacted: false };
  let redacted = false;
  const value = references.map((reference) => {
    const result = redactSecrets(reference);
    redacted ||= result.redacted;
    return result.text;
  });
  return { value, redacted };
}

/**
 * A JSON document given as JSON text (what BAZINGA's command line passes) or as a value (what the
 * API passes): every string leaf and every secret-named key is redacted, and it is stored as text.
 */
export function redactDocument(document: unknown): Redacted<string> {
  const parsed: unknown = typeof document === "string" ? JSON.parse(document) : document;
  const result = redactJson(parsed);
  return { value: JSON.stringify(result.value), redacted: result.redacted };
}

/** The JSON text of a document, or null when it is not JSON (validation uses this). */
export function jsonTextOf(document: unknown): string | null {
  if (typeof document === "string") {
    try {
      JSON.parse(document);
      return document;
    } catch {
      return null;
    }
  }
  try {
    return JSON.stringify(document) ?? null;
  } catch {
    return null;
  }
}

/** Stored JSON text back to a value; text that is not JSON (written by hand) comes back as it is. */
export function readJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
