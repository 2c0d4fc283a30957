import { SourceSchema, openSource } from "../source";
import { type BazingaSchemaInfo, detectBazinga } from "./schema";

/** Open the file read-only just long enough to tell whether it is a BAZINGA database, and which version. */
export function inspectBazinga(file: string): BazingaSchemaInfo {
  const source = openSource(file, "a BAZINGA database");
  try {
    return detectBazinga(source, new SourceSchema(source), file);
  } finally {
    source.close();
  }
}
