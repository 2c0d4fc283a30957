import { type Db, readTransaction } from "@/db/client";
import type { CompletionVerdict } from "@/server/domain/completion-gate";
import { parseInput } from "../parse-input";
import { loadSession } from "../session/load";
import { evaluateSessionCompletion } from "./check";
import { PreviewCompletionInput } from "./schemas";

export interface CompletionPreview extends CompletionVerdict {
  sessionId: string;
}

/**
 * What the completion gate would say about the session right now, for the session header:
 * the same rows and the same `evaluateCompletion` as `checkCompletion`, but nothing is recorded,
 * so anyone who may read the session may ask. The reads share one snapshot (a deferred read
 * transaction): a writer committing between them cannot mix two states into one verdict.
 */
export async function previewCompletion(db: Db, raw: PreviewCompletionInput): Promise<CompletionPreview> {
  const input = parseInput(PreviewCompletionInput, raw, "completion.invalid_input");
  return readTransaction(db, async (tx) => {
    await loadSession(tx, input.sessionId);
    return { sessionId: input.sessionId, ...(await evaluateSessionCompletion(tx, input.sessionId)) };
  });
}
