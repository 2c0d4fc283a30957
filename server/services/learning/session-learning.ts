import { queryAll } from "@/db/query";
import { desc, eq, or } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { errorPatterns, strategies } from "@/db/schema";
import { parseInput } from "../parse-input";
import { loadSession } from "../session/load";
import type { ErrorPatternRow } from "./error-patterns";
import { SessionLearningInput } from "./schemas";
import type { StrategyRow } from "./strategies";

export const SESSION_LEARNING_LIMIT = 20;

export interface SessionLearning {
  /** The session's project (BAZINGA keeps it in the session's metadata.project_id), if it names one. */
  projectId: string | null;
  errorPatterns: (Omit<ErrorPatternRow, "signatureJson"> & { errorType: string | null; messagePattern: string | null })[];
  strategies: StrategyRow[];
}

/**
 * What the session's project has learned, for its page: the error patterns (most confident first)
 * and strategies (most helpful first) of the project the session belongs to, and those recorded
 * from this session.
 */
export async function sessionLearning(db: DbOrTx, raw: SessionLearningInput): Promise<SessionLearning> {
  const input = parseInput(SessionLearningInput, raw, "learning.invalid_input");
  const session = await loadSession(db, input.sessionId);
  const project = session.metadata?.project_id;
  const projectId = typeof project === "string" && project.length > 0 ? project : null;
  const ofPatterns = projectId
    ? or(eq(errorPatterns.projectId, projectId), eq(errorPatterns.sessionId, input.sessionId))
    : eq(errorPatterns.sessionId, input.sessionId);
  const ofStrategies = projectId
    ? or(eq(strategies.projectId, projectId), eq(strategies.sessionId, input.sessionId))
    : eq(strategies.sessionId, input.sessionId);
  const patterns = await queryAll(
    db.select().from(errorPatterns).where(ofPatterns).orderBy(desc(errorPatterns.confidence), desc(errorPatterns.occurrences)).limit(SESSION_LEARNING_LIMIT),
  );
  return {
    projectId,
    errorPatterns: patterns.map(({ signatureJson, ...row }) => {
      const signature = parseSignature(signatureJson);
      return { ...row, errorType: signature.error_type ?? null, messagePattern: signature.message_pattern ?? null };
    }),
    strategies: await queryAll(
      db.select().from(strategies).where(ofStrategies).orderBy(desc(strategies.helpfulness), desc(strategies.lastSeen)).limit(SESSION_LEARNING_LIMIT),
    ),
  };
}

function parseSignature(text: string): { error_type?: string; message_pattern?: string } {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? (value as { error_type?: string; message_pattern?: string }) : {};
  } catch {
    return {};
  }
}
