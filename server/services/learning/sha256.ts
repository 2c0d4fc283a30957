import { createHash } from "node:crypto";

/** Hex SHA-256 of a UTF-8 text: the hash the domain's BAZINGA-compatible ids are built with. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
