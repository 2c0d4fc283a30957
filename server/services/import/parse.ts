import type { z } from "zod";
import { parseInput } from "../parse-input";

/** Check a row's mapped values with the service's own input schema before writing (names the field it breaks). */
export function parseRow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parseInput(schema, input, "import.invalid_row");
}
