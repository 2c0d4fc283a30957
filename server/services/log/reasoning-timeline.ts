import { queryAll } from "@/db/query";
import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { orchestrationLogs } from "@/db/schema";
import { loadSession } from "../session/load";
import { ReasoningTimelineInput } from "./schemas";
import { parseInput } from "../parse-input";

export interface TimelineEntry {
  id: number;
  groupId: string | null;
  agentType: string;
  agentId: string | null;
  iteration: number | null;
  reasoningPhase: string | null;
  confidenceLevel: string | null;
  content: string;
  redacted: boolean;
  timestamp: Date;
}

export type ReasoningTimeline = { format: "json"; entries: TimelineEntry[] } | { format: "markdown"; text: string };

/** Longer reasoning is cut in the markdown view; the JSON view keeps it whole. */
const MARKDOWN_CONTENT_LIMIT = 500;

/**
 * Every agent's reasoning in order (BAZINGA's `reasoning-timeline`), for one group or the session:
 * as entries, or as the markdown BAZINGA prints (a header per run of one group, a heading per
 * entry with agent, phase, confidence and a lock when redacted).
 */
export async function reasoningTimeline(db: DbOrTx, raw: ReasoningTimelineInput): Promise<ReasoningTimeline> {
  const input = parseInput(ReasoningTimelineInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = orchestrationLogs;
  const entries = await queryAll(
    db
      .select({
        id: t.id,
        groupId: t.groupId,
        agentType: t.agentType,
        agentId: t.agentId,
        iteration: t.iteration,
        reasoningPhase: t.reasoningPhase,
        confidenceLevel: t.confidenceLevel,
        content: t.content,
        redacted: t.redacted,
        timestamp: t.timestamp,
      })
      .from(t)
      .where(and(eq(t.sessionId, input.sessionId), eq(t.logType, "reasoning"), input.groupId ? eq(t.groupId, input.groupId) : undefined))
      .orderBy(asc(t.id)),
  );
  return input.format === "json" ? { format: "json", entries } : { format: "markdown", text: renderTimelineMarkdown(entries) };
}

/** `2025-01-12 14:30:22` (UTC), as BAZINGA shows its timestamps. */
function formatTime(at: Date): string {
  return at.toISOString().slice(0, 19).replace("T", " ");
}

/** The markdown BAZINGA's `reasoning-timeline --format markdown` prints, for these entries. */
export function renderTimelineMarkdown(entries: readonly TimelineEntry[]): string {
  if (entries.length === 0) return "# Reasoning Timeline\n\nNo reasoning entries found.";
  const lines = ["# Reasoning Timeline", ""];
  let currentGroup: string | null | undefined;
  for (const entry of entries) {
    if (entry.groupId !== currentGroup) {
      currentGroup = entry.groupId;
      lines.push(`## Group: ${currentGroup ?? "global"}`, "");
    }
    const agent = entry.agentId ? `${entry.agentType} (${entry.agentId})` : entry.agentType;
    const confidence = entry.confidenceLevel ? ` [${entry.confidenceLevel}]` : "";
    const lock = entry.redacted ? " 🔒" : "";
    const content = entry.content.length > MARKDOWN_CONTENT_LIMIT ? `${entry.content.slice(0, MARKDOWN_CONTENT_LIMIT)}...` : entry.content;
    lines.push(`### [${formatTime(entry.timestamp)}] ${agent} - ${entry.reasoningPhase}${confidence}${lock}`, "", content, "", "---", "");
  }
  return lines.join("\n");
}
