import type { DbOrTx } from "@/db/client";
import { parseInput } from "../parse-input";
import { type SessionRow, loadSession } from "./load";
import { GetSessionInput } from "./schemas";

/** One session by id (`session.get`); `loadSession` is the services' own lookup, for an id already checked. */
export async function getSession(db: DbOrTx, raw: GetSessionInput): Promise<SessionRow> {
  const input = parseInput(GetSessionInput, raw, "session.invalid_input");
  return loadSession(db, input.id);
}
