import { queryGet, queryRun } from "@/db/query";
import { mapInOrder } from "../in-order";
import { and, desc, eq, isNull, max } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { attemptResults, attempts, goals, runtimeSessions, toolCalls } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type HeldSession, decideStop } from "@/server/domain/stop-hold";
import { summarizeToolCall } from "@/server/domain/tool-call-summary";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { gateInput } from "../completion/check";
import { evaluateCompletion } from "@/server/domain/completion-gate";
import { authorizeRuntimeSession, ownersWordsOnly } from "@/server/domain/runtime-owner";
import { gateAuthors } from "./authors";
import { appendLogRow } from "../log/append-log";
import { authorize } from "@/server/domain/permissions";
import { ensureTools } from "../attempt/tools";
import { type RuntimeSessionRow, activeLinkedSessions, ensureRuntimeSession, findRuntimeSession } from "./link";
import { type ClaudeCodeHookInput, HookOptions, RUNTIME_SESSION_ENV, type RuntimeSessionRef, parseClaudeCodeHookInput } from "./schemas";

/** What the runtime is answered; each adapter (command, HTTP) writes it in its own form (claude-code-output.ts). */
export type HookAnswer =
  | {
      decision: "allow";
      /** Shown to the user (a stop let through with the gate rejecting). */
      systemMessage?: string;
      /** Variables for the runtime session's later commands (SessionStart; a command hook writes them to CLAUDE_ENV_FILE). */
      exportEnv?: Record<string, string>;
    }
  | { decision: "block"; reason: string };

const ALLOW: HookAnswer = { decision: "allow" };

/**
 * One Claude Code hook call: link the runtime session (SessionStart), record a tool call in each
 * linked active ledger session (PostToolUse, PostToolUseFailure), or hold a stop while a linked
 * session's completion gate rejects (Stop, SubagentStop). Every other event is acknowledged and
 * nothing is written; so is any call from a runtime session no ledger session is linked to.
 * @throws ValidationError naming the field when the input is not Claude Code's hook input (nothing written).
 */
export async function handleClaudeCodeHook(ctx: ServiceContext, raw: unknown, rawOptions: HookOptions = {}): Promise<HookAnswer> {
  authorize(ctx.actor, "runtime.hook");
  const input = parseClaudeCodeHookInput(raw);
  const options = HookOptions.parse(rawOptions);
  const ref: RuntimeSessionRef = { runtime: "claude-code", externalId: input.session_id };
  switch (input.hook_event_name) {
    case "SessionStart":
      return sessionStart(ctx, ref, input as Extract<ClaudeCodeHookInput, { hook_event_name: "SessionStart" }>);
    case "PostToolUse":
    case "PostToolUseFailure":
      return toolCall(ctx, ref, input as Extract<ClaudeCodeHookInput, { hook_event_name: "PostToolUse" | "PostToolUseFailure" }>);
    case "Stop":
    case "SubagentStop":
      return stop(ctx, ref, input as Extract<ClaudeCodeHookInput, { hook_event_name: "Stop" | "SubagentStop" }>, options.maxBlocks);
    default:
      return ALLOW;
  }
}

async function sessionStart(
  ctx: ServiceContext,
  ref: RuntimeSessionRef,
  input: Extract<ClaudeCodeHookInput, { hook_event_name: "SessionStart" }>,
): Promise<HookAnswer> {
  await write(ctx, async (tx) => {
    const runtime = await ensureRuntimeSession(tx, ctx.actor, ref, { at: nowOf(ctx), cwd: input.cwd ?? null, source: input.source });
    const linked = await activeLinkedSessions(tx, runtime.id);
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.runtimeSessionStarted,
      sessionId: null,
      entity: "runtime_session",
      entityId: runtime.id,
      data: { runtime: ref.runtime, runtimeSessionId: ref.externalId, source: input.source, cwd: input.cwd ?? null, linkedSessions: linked },
    });
  });
  return { decision: "allow", exportEnv: { [RUNTIME_SESSION_ENV]: ref.externalId } };
}

async function toolCall(
  ctx: ServiceContext,
  ref: RuntimeSessionRef,
  input: Extract<ClaudeCodeHookInput, { hook_event_name: "PostToolUse" | "PostToolUseFailure" }>,
): Promise<HookAnswer> {
  const runtime = await findRuntimeSession(ctx.db, ref);
  if (!runtime) return ALLOW;
  authorizeRuntimeSession(ctx.actor, runtime);
  if ((await activeLinkedSessions(ctx.db, runtime.id)).length === 0) return ALLOW;
  const failed = input.hook_event_name === "PostToolUseFailure";
  const summary = summarizeToolCall(
    failed
      ? {
          tool: input.tool_name,
          input: input.tool_input,
          error: "error" in input ? input.error : undefined,
          interrupted: "is_interrupt" in input ? input.is_interrupt : undefined,
        }
      : { tool: input.tool_name, input: input.tool_input, response: "tool_response" in input ? input.tool_response : undefined },
  );
  await write(ctx, async (tx) => {
    const now = nowOf(ctx);
    await touch(tx, ctx, runtime, now);
    // Read again inside the write: a session completed since the check above takes no more calls.
    for (const sessionId of await activeLinkedSessions(tx, runtime.id)) {
      const payload = {
        runtime: ref.runtime,
        runtimeSessionId: ref.externalId,
        tool: input.tool_name,
        toolUseId: input.tool_use_id ?? null,
        agentId: input.agent_id ?? null,
        agentType: input.agent_type ?? null,
        failed,
        input: summary.input,
        outcome: summary.outcome,
      };
      await appendLogRow(tx, ctx, {
        sessionId,
        timestamp: now,
        iteration: null,
        agentType: ref.runtime,
        agentId: ctx.actor.label,
        content: summary.headline,
        logType: "event",
        reasoningPhase: null,
        confidenceLevel: null,
        referencesJson: null,
        redacted: summary.redacted,
        groupId: null,
        eventSubtype: failed ? "tool_call_failed" : "tool_call",
        eventPayload: JSON.stringify(payload),
        idempotencyKey: null,
      });
      await recordInOpenAttempt(tx, ctx, sessionId, input.tool_name, summary, now);
    }
  });
  return ALLOW;
}

/** The session's newest attempt that has no result yet gets the call too, numbered after its last one. */
async function recordInOpenAttempt(
  tx: Tx,
  ctx: ServiceContext,
  sessionId: string,
  tool: string,
  summary: { input: string; outcome: string | null; redacted: boolean },
  now: Date,
): Promise<void> {
  const open = await queryGet(
    tx
      .select({ id: attempts.id, goalId: goals.id })
      .from(attempts)
      .innerJoin(goals, eq(goals.id, attempts.goalId))
      .leftJoin(attemptResults, eq(attemptResults.attemptId, attempts.id))
      .where(and(eq(goals.sessionId, sessionId), isNull(attemptResults.id)))
      .orderBy(desc(attempts.id))
      .limit(1),
  );
  if (!open) return;
  const { byName } = await ensureTools(tx, sessionId, [tool], now);
  const order =
    ((
      await queryGet(
        tx
          .select({ last: max(toolCalls.order) })
          .from(toolCalls)
          .where(eq(toolCalls.attemptId, open.id)),
      )
    )?.last ?? 0) + 1;
  await queryRun(
    tx
      .insert(toolCalls)
      .values({ attemptId: open.id, order, toolId: byName.get(tool)!.id, toolName: tool, input: summary.input, output: summary.outcome, timestamp: now }),
  );
  await appendEvent(tx, ctx, {
    type: EVENT_TYPES.toolCallsRecorded,
    sessionId,
    entity: "attempt",
    entityId: open.id,
    data: { goalId: open.goalId, attemptId: open.id, count: 1, firstOrder: order, lastOrder: order, redacted: summary.redacted ? 1 : 0 },
  });
}

async function stop(
  ctx: ServiceContext,
  ref: RuntimeSessionRef,
  input: Extract<ClaudeCodeHookInput, { hook_event_name: "Stop" | "SubagentStop" }>,
  maxBlocks: number,
): Promise<HookAnswer> {
  // Read, decide and record in one transaction: two stops arriving together must not both read
  // the same count of held stops and both write the next one (the cap would be passed).
  const decided = await write(ctx, async (tx) => {
    const runtime = await findRuntimeSession(tx, ref);
    if (!runtime) return null;
    authorizeRuntimeSession(ctx.actor, runtime);
    const owner = runtime.ownerPrincipal ?? ctx.actor.principalId;
    const subagent = input.hook_event_name === "SubagentStop";
    const counted = subagent ? runtime.subagentConsecutiveBlocks : runtime.consecutiveBlocks;
    // The gate's verdict as the session header shows it (nothing recorded), worded with the owner's
    // words alone: a text another principal wrote is named by id and writer, never fed to the agent.
    const verdicts = await mapInOrder(await activeLinkedSessions(tx, runtime.id), async (sessionId) => ({
      sessionId,
      ...evaluateCompletion(ownersWordsOnly(await gateInput(tx, sessionId), await gateAuthors(tx, sessionId), owner)),
    }));
    const decision = decideStop({ verdicts, stopHookActive: input.stop_hook_active, consecutiveBlocks: counted, maxBlocks });
    if (decision.kind === "allow" && !decision.release) return null;
    const count = decision.kind === "hold" ? decision.block : 0;
    const base = {
      runtime: ref.runtime,
      runtimeSessionId: ref.externalId,
      event: input.hook_event_name,
      agentId: input.agent_id ?? null,
      agentType: input.agent_type ?? null,
    };
    const now = nowOf(ctx);
    await queryRun(
      tx
        .update(runtimeSessions)
        .set({ ...(subagent ? { subagentConsecutiveBlocks: count } : { consecutiveBlocks: count }), lastSeenAt: now, ownerPrincipal: owner })
        .where(eq(runtimeSessions.id, runtime.id)),
    );
    if (decision.kind === "allow") {
      await appendEvent(tx, ctx, {
        type: EVENT_TYPES.runtimeStopReleased,
        sessionId: null,
        entity: "runtime_session",
        entityId: runtime.id,
        data: { ...base, afterHeld: counted },
      });
      return { decision, counted };
    }
    for (const held of decision.held) {
      const data =
        decision.kind === "hold"
          ? { ...base, block: decision.block, maxBlocks, reasons: held.reasons, fixes: held.fixes, message: decision.reason }
          : { ...base, cause: decision.cause, held: counted, maxBlocks, reasons: held.reasons };
      await appendEvent(tx, ctx, {
        type: decision.kind === "hold" ? EVENT_TYPES.runtimeStopHeld : EVENT_TYPES.runtimeStopUnverified,
        sessionId: held.sessionId,
        entity: "runtime_session",
        entityId: runtime.id,
        data,
      });
    }
    return { decision, counted };
  });
  if (!decided) return ALLOW;
  const { decision, counted } = decided;
  if (decision.kind === "hold") return { decision: "block", reason: decision.reason };
  if (decision.kind === "unverified") return { decision: "allow", systemMessage: unverifiedMessage(decision.held, decision.cause, counted) };
  return ALLOW;
}

function unverifiedMessage(held: readonly HeldSession[], cause: "max_blocks" | "stop_hook_active", count: number): string {
  const why =
    cause === "max_blocks" ? `after ${count} held ${count === 1 ? "stop" : "stops"} in a row` : "because another stop hook is already continuing this turn";
  const ids = held.map((h) => h.sessionId).join(", ");
  return `Proofgate let this stop through ${why}, with the completion gate still rejecting ${ids} (recorded as runtime.stop_unverified). See why: proofgate check-completion ${held[0]?.sessionId ?? "<session>"}`;
}

/** Seen now; a runtime session recorded before owners were kept is adopted by the principal reporting it. */
async function touch(tx: Tx, ctx: ServiceContext, runtime: RuntimeSessionRow, at: Date): Promise<void> {
  await queryRun(
    tx
      .update(runtimeSessions)
      .set({ lastSeenAt: at, ownerPrincipal: runtime.ownerPrincipal ?? ctx.actor.principalId })
      .where(eq(runtimeSessions.id, runtime.id)),
  );
}
