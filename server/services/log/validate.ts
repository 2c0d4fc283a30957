import type { z } from "zod";
import { ValidationError, fieldPath } from "@/server/domain/errors";

/**
 * Parse a verb's input with its schema, or refuse with a ValidationError naming the first offending
 * field (`rows[417].content`) and its rule (a refinement's own rule, else `log.invalid_input`).
 * Verbs parse for themselves so direct callers (CLI, importer, tests) get the same checks as the API.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw new ValidationError("input", "log.invalid_input", "invalid input");
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
  const message = issue.code === "unrecognized_keys" ? "is not a known field" : issue.message;
  const rule = issue.code === "custom" && typeof issue.params?.rule === "string" ? issue.params.rule : "log.invalid_input";
  throw new ValidationError(fieldPath(path), rule, message);
}
