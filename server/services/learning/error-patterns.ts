import { queryAll, queryGet, queryRun } from "@/db/query";
import { and, desc, eq, gte } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { errorPatterns } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { EVENT_TYPES } from "@/server/domain/event-types";
import {
  DEFAULT_TTL_DAYS,
  INITIAL_CONFIDENCE,
  INJECTABLE_CONFIDENCE,
  errorSignature,
  isExpired,
  nextConfidence,
  patternHash,
  pythonJson,
} from "@/server/domain/learning";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { requireLogWriter } from "../log/common";
import { redactText } from "../log/redaction";
import { parseInput } from "../parse-input";
import { loadSession } from "../session/load";
import { CleanupErrorPatternsInput, GetErrorPatternsInput, SaveErrorPatternInput, UpdateErrorConfidenceInput } from "./schemas";
import { sha256Hex } from "./sha256";

export type ErrorPatternRow = typeof errorPatterns.$inferSelect;

/**
 * Save an error and its fix for a project (BAZINGA's `save-error-pattern`): the message is reduced
 * to a signature (paths, line numbers and quoted values removed) whose hash identifies the pattern;
 * saving it again counts an occurrence and keeps the longer solution. Secrets are redacted first.
 */
export async function saveErrorPattern(ctx: ServiceContext, raw: SaveErrorPatternInput): Promise<ErrorPatternRow & { operation: "created" | "updated" }> {
  requireLogWriter(ctx, "save error patterns");
  const input = parseInput(SaveErrorPatternInput, raw, "learning.invalid_input");
  let redacted = false;
  const clean = (text: string) => {
    const result = redactText(text);
    redacted ||= result.redacted;
    return result.value;
  };
  const signature = errorSignature(
    clean(input.errorType),
    clean(input.errorMessage),
    (input.contextHints ?? []).map(clean),
    (input.stackPattern ?? []).map(clean),
  );
  const solution = clean(input.solution);
  const hash = patternHash(sha256Hex, signature);
  return write(ctx, async (tx) => {
    if (input.sessionId) await loadSession(tx, input.sessionId);
    const now = nowOf(ctx);
    const key = and(eq(errorPatterns.patternHash, hash), eq(errorPatterns.projectId, input.projectId));
    const existing = await queryGet(tx.select().from(errorPatterns).where(key));
    const row = existing
      ? (await queryGet(
          tx
            .update(errorPatterns)
            .set({
              occurrences: existing.occurrences + 1,
              lastSeen: now,
              solution: solution.length > existing.solution.length ? solution : existing.solution,
              redacted: existing.redacted || redacted,
              ...(input.sessionId ? { sessionId: input.sessionId } : {}),
            })
            .where(key)
            .returning(),
        ))!
      : await queryGet(
          tx
            .insert(errorPatterns)
            .values({
              patternHash: hash,
              projectId: input.projectId,
              signatureJson: pythonJson(signature),
              solution,
              confidence: INITIAL_CONFIDENCE,
              occurrences: 1,
              lang: input.lang ?? null,
              lastSeen: now,
              createdAt: now,
              ttlDays: DEFAULT_TTL_DAYS,
              sessionId: input.sessionId ?? null,
              redacted,
            })
            .returning(),
        );
    const operation = existing ? "updated" : "created";
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.errorPatternSaved,
      sessionId: input.sessionId ?? null,
      entity: "error_pattern",
      entityId: hash,
      data: { projectId: input.projectId, operation, occurrences: row.occurrences, redacted },
    });
    return { ...row, operation };
  });
}

/** A project's patterns at or above a confidence, most confident and most frequent first (`get-error-patterns`). */
export async function getErrorPatterns(db: DbOrTx, raw: GetErrorPatternsInput): Promise<ErrorPatternRow[]> {
  const input = parseInput(GetErrorPatternsInput, raw, "learning.invalid_input");
  const t = errorPatterns;
  return await queryAll(
    db
      .select()
      .from(t)
      .where(and(eq(t.projectId, input.projectId), input.lang ? eq(t.lang, input.lang) : undefined, gte(t.confidence, input.minConfidence)))
      .orderBy(desc(t.confidence), desc(t.occurrences))
      .limit(input.limit),
  );
}

/** +0.1 when the pattern's solution helped, −0.2 for a false match (`update-error-confidence`). */
export async function updateErrorConfidence(
  ctx: ServiceContext,
  raw: UpdateErrorConfidenceInput,
): Promise<{ patternHash: string; previousConfidence: number; newConfidence: number; injectable: boolean }> {
  requireLogWriter(ctx, "update error pattern confidence");
  const input = parseInput(UpdateErrorConfidenceInput, raw, "learning.invalid_input");
  return write(ctx, async (tx) => {
    const key = and(eq(errorPatterns.patternHash, input.patternHash), eq(errorPatterns.projectId, input.projectId));
    const existing = await queryGet(tx.select().from(errorPatterns).where(key));
    if (!existing) throw new NotFoundError("error_pattern", `${input.projectId}/${input.patternHash}`);
    const confidence = nextConfidence(existing.confidence, input.outcome === "success");
    await queryRun(
      tx
        .update(errorPatterns)
        .set({ confidence, lastSeen: nowOf(ctx) })
        .where(key),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.errorConfidenceUpdated,
      sessionId: null,
      entity: "error_pattern",
      entityId: input.patternHash,
      data: { projectId: input.projectId, outcome: input.outcome, from: existing.confidence, to: confidence },
    });
    return {
      patternHash: input.patternHash,
      previousConfidence: existing.confidence,
      newConfidence: confidence,
      injectable: confidence >= INJECTABLE_CONFIDENCE,
    };
  });
}

/** Remove patterns past their TTL, for one project or all (`cleanup-error-patterns`); the event names each one removed. */
export async function cleanupErrorPatterns(ctx: ServiceContext, raw: CleanupErrorPatternsInput): Promise<{ deletedCount: number; projectId: string | null }> {
  requireLogWriter(ctx, "clean up error patterns");
  const input = parseInput(CleanupErrorPatternsInput, raw, "learning.invalid_input");
  return write(ctx, async (tx) => {
    const now = nowOf(ctx);
    const rows = await queryAll(
      tx
        .select()
        .from(errorPatterns)
        .where(input.projectId ? eq(errorPatterns.projectId, input.projectId) : undefined),
    );
    const expired = rows.filter((row) => isExpired(row.lastSeen, row.ttlDays, now));
    for (const row of expired)
      await queryRun(tx.delete(errorPatterns).where(and(eq(errorPatterns.patternHash, row.patternHash), eq(errorPatterns.projectId, row.projectId))));
    if (expired.length > 0) {
      await appendEvent(tx, ctx, {
        type: EVENT_TYPES.errorPatternsCleanedUp,
        sessionId: null,
        entity: "error_pattern",
        entityId: null,
        data: {
          projectId: input.projectId ?? null,
          removed: expired.map((row) => ({
            projectId: row.projectId,
            patternHash: row.patternHash,
            lastSeen: row.lastSeen.toISOString(),
            ttlDays: row.ttlDays,
          })),
        },
      });
    }
    return { deletedCount: expired.length, projectId: input.projectId ?? null };
  });
}

/** A pattern as another ledger stored it (an import): its hash and signature kept, its text redacted. */
export interface ErrorPatternRecord {
  patternHash: string;
  projectId: string;
  signatureJson: string;
  solution: string;
  confidence: number;
  occurrences: number;
  lang: string | null;
  lastSeen: Date;
  createdAt: Date;
  ttlDays: number;
}

/**
 * Write a pattern exactly as BAZINGA stored it (`import bazinga`), or bring an imported one up to
 * date: the hash is kept (it is BAZINGA's identity of the pattern), secrets in the signature and
 * solution are redacted as on every other way in.
 */
export async function recordErrorPattern(ctx: ServiceContext, record: ErrorPatternRecord): Promise<ErrorPatternRow> {
  requireLogWriter(ctx, "save error patterns");
  const signature = redactText(record.signatureJson);
  const solution = redactText(record.solution);
  const values = {
    ...record,
    signatureJson: signature.value,
    solution: solution.value,
    confidence: Math.min(1, Math.max(0, record.confidence)),
    occurrences: Math.max(1, record.occurrences),
    ttlDays: Math.max(1, record.ttlDays),
    redacted: signature.redacted || solution.redacted,
  };
  return write(ctx, async (tx) => {
    const row = await queryGet(
      tx
        .insert(errorPatterns)
        .values(values)
        .onConflictDoUpdate({
          target: [errorPatterns.patternHash, errorPatterns.projectId],
          set: {
            signatureJson: values.signatureJson,
            solution: values.solution,
            confidence: values.confidence,
            occurrences: values.occurrences,
            lang: values.lang,
            lastSeen: values.lastSeen,
            ttlDays: values.ttlDays,
            redacted: values.redacted,
          },
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.errorPatternSaved,
      sessionId: null,
      entity: "error_pattern",
      entityId: row.patternHash,
      data: { projectId: row.projectId, operation: "imported", occurrences: row.occurrences, redacted: row.redacted },
    });
    return row;
  });
}
