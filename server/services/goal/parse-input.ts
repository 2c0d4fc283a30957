import type { z } from "zod";
import { ValidationError, fieldPath } from "@/server/domain/errors";

/**
 * Parse a verb's input with its schema. Routers parse too, but the command line and tests call
 * verbs directly, and no verb may write a row from input its schema refuses.
 * @throws ValidationError naming the first offending field (e.g. `calls[3].output`) and `rule`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, rule: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ValidationError(fieldPath(issue?.path ?? []), rule, issue?.message ?? "invalid input");
}
