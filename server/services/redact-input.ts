import { redactJson } from "@/server/domain/redact";

/**
 * A write's input with the secrets in every string replaced (`[REDACTED:<kind>]`), for the
 * services whose text goes straight into rows and events: task evidence and reasons, proofpacks,
 * criteria, goals, contracts, prompts, notes. Log and attempt output services redact their own
 * text and flag the row. Identifiers are strings too: one that is a secret is redacted the same
 * way on every call, so it still finds its row.
 */
export function redactInput<T>(input: T): T {
  return redactJson(input).value;
}
