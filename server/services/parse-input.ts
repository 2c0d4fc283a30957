import type { z } from "zod";
import { ValidationError, fieldPath } from "@/server/domain/errors";

/**
 * The one input contract of every service verb: parse the caller's input with the verb's schema,
 * or refuse with a ValidationError naming the first offending field (`criteria[0].criterion`) and
 * its rule, before anything is read or written. Routers parse too, but the command line, the
 * importer, tests and any other adapter call verbs directly, and a raw ZodError (or a TypeError
 * from a value of the wrong type) would reach their caller as an internal error.
 *
 * An unknown field is named as the field itself (`extra: is not a known field`), as the API names
 * it. `rule` is the feature's rule for bad input (`task.invalid_input`); a refinement that carries
 * its own (`params: { rule }`) names that instead.
 * @throws ValidationError
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, rule: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw new ValidationError("input", rule, "invalid input");
  if (issue.code === "unrecognized_keys") throw new ValidationError(fieldPath([...issue.path, issue.keys[0] ?? ""]), rule, "is not a known field");
  const own = issue.code === "custom" && typeof issue.params?.rule === "string" ? issue.params.rule : rule;
  throw new ValidationError(fieldPath(issue.path), own, issue.message);
}
