/**
 * Holding a runtime's stop (Claude Code's Stop / SubagentStop hook) while a linked ledger session's
 * completion gate rejects: whether to hold, let through, or let through unverified, and the reason
 * the agent is given — every failed check with the command (or MCP tool) that fixes it.
 */

export const DEFAULT_MAX_BLOCKS = 3;
export const MAX_MAX_BLOCKS = 100;

/** A linked, still active ledger session and what its completion gate says now. */
export interface LinkedVerdict {
  sessionId: string;
  accepted: boolean;
  reasons: readonly string[];
}

export interface StopHoldInput {
  /** The linked ledger sessions that are still active (completed or failed ones hold nothing). */
  verdicts: readonly LinkedVerdict[];
  /** Claude Code's `stop_hook_active`: this stop comes from a continuation a stop hook caused. */
  stopHookActive: boolean;
  /** Stops of this agent held in a row, as recorded (before this one). */
  consecutiveBlocks: number;
  maxBlocks: number;
}

/** A rejected session as the agent is told about it: each failed check and how to fix it. */
export interface HeldSession {
  sessionId: string;
  reasons: string[];
  fixes: (string | null)[];
}

export type StopDecision =
  /** Nothing rejects. `release`: earlier stops were held, so the count starts again. */
  | { kind: "allow"; release: boolean }
  /** Refuse the stop: `block` is this hold's number (1…maxBlocks), `reason` what the agent reads. */
  | { kind: "hold"; block: number; reason: string; held: HeldSession[] }
  /**
   * Let the stop through though a gate rejects: the cap was reached, or the runtime is already
   * continuing because of a stop hook that was not this one (no hold of ours is in progress).
   */
  | { kind: "unverified"; cause: "max_blocks" | "stop_hook_active"; held: HeldSession[] };

/**
 * The rule. A fresh stop (`stop_hook_active` false) starts the count again; a continuation this
 * hook caused keeps counting, so `maxBlocks` holds in a row at most and then the stop goes through:
 * the agent is never trapped. A continuation with no hold of ours in progress was caused by another
 * stop hook: holding it too could make the two loop, so it goes through (recorded unverified).
 */
export function decideStop(input: StopHoldInput): StopDecision {
  const held = input.verdicts.filter((v) => !v.accepted).map(describeRejection);
  const previous = input.stopHookActive ? input.consecutiveBlocks : 0;
  if (held.length === 0) return { kind: "allow", release: input.consecutiveBlocks > 0 };
  if (input.stopHookActive && previous === 0) return { kind: "unverified", cause: "stop_hook_active", held };
  if (previous >= input.maxBlocks) return { kind: "unverified", cause: "max_blocks", held };
  const block = previous + 1;
  return { kind: "hold", block, reason: holdReason(held, block, input.maxBlocks), held };
}

function describeRejection(verdict: LinkedVerdict): HeldSession {
  return { sessionId: verdict.sessionId, reasons: [...verdict.reasons], fixes: verdict.reasons.map((r) => fixFor(verdict.sessionId, r)) };
}

/** What the agent reads when its stop is held. */
export function holdReason(held: readonly HeldSession[], block: number, maxBlocks: number): string {
  const lines = [
    `Proofgate is holding this stop (${block} of at most ${maxBlocks} in a row): the completion gate rejects ${held.length === 1 ? "ledger session" : "ledger sessions"} ${held.map((h) => h.sessionId).join(", ")}. Fix each failed check below, then stop again.`,
  ];
  for (const session of held) {
    if (held.length > 1) lines.push(`Session ${session.sessionId}:`);
    session.reasons.forEach((reason, i) => {
      lines.push(`- ${reason}`);
      const fix = session.fixes[i];
      if (fix) lines.push(`  fix: ${fix}`);
    });
  }
  lines.push(
    "A check that cannot be met is not a reason to stop: record why (a criterion blocked by something outside this work: --status blocked with evidence naming the blocker). See every check: proofgate check-completion <session> (MCP tool: check_completion).",
  );
  return lines.join("\n");
}

const CRITERION = /^Criterion "(.*)" is not met: (.*)$/s;
/** A criterion the gate names by id and writer instead of quoting it (runtime-owner.ts `namedInstead`). */
const FOREIGN_CRITERION = /^(?:criterion #\d+, written by |a criterion whose writer is not recorded$)/;
const TASKS = /^\d+ tasks? (?:is|are) (pending|in progress|claimed|verified|blocked): (.*)$/s;

/**
 * The move that fixes one of the completion gate's reasons (server/domain/completion-gate.ts
 * words them; stop-hold.test.ts feeds it the gate's real output), or null when the reason is a
 * summary line or no move fixes it.
 */
export function fixFor(sessionId: string, reason: string): string | null {
  const s = shellQuote(sessionId);
  if (reason.startsWith("No required success criteria recorded")) {
    return `proofgate save-success-criteria ${s} '[{"criterion":"<what done means>"}]' (MCP tool: save_success_criteria)`;
  }
  const criterion = CRITERION.exec(reason);
  if (criterion) {
    const [, text = "", why = ""] = criterion;
    if (FOREIGN_CRITERION.test(text)) {
      return `its text is not repeated here, since another principal than this agent's wrote it: read it with proofgate get-success-criteria ${s} (MCP tool: get_success_criteria), then meet it and update it by its exact text (MCP tool: update_success_criterion)`;
    }
    const c = shellQuote(text);
    if (why.startsWith("blocked")) {
      return `if an external blocker stops it: proofgate update-success-criterion ${s} ${c} --status blocked --evidence '<the external blocker>'; else meet it and use --status met (MCP tool: update_success_criterion)`;
    }
    if (why.startsWith("claimed")) {
      return `make it true, then a verifier re-checks it: proofgate verify-success-criterion ${s} ${c} --status met --evidence '<proof>' --agent-id <verifier> (MCP tool: verify_success_criterion)`;
    }
    return `meet it, then: proofgate update-success-criterion ${s} ${c} --status met --actual '<what you measured>' --evidence '<proof>' (MCP tool: update_success_criterion)`;
  }
  const tasks = TASKS.exec(reason);
  if (tasks) {
    const key = firstKey(tasks[2] ?? "");
    switch (tasks[1]) {
      case "pending":
      case "in progress":
        return `do the work, then claim it with evidence: proofgate claim ${s} ${key} --evidence <paths> --agent-id <you> (MCP tool: claim_task); a different agent verifies it`;
      case "claimed":
        return `an agent other than the claimant verifies it: proofgate verify ${s} ${key} --check <name>=pass --agent-id <verifier> (MCP tool: verify_task), or blocks it with the failures`;
      case "verified":
        return `proofgate complete ${s} ${key} --agent-id <orchestrator> (MCP tool: complete_task)`;
      case "blocked":
        return `fix the failures, then proofgate request-reset ${s} ${key} --reason '<what changed>' (MCP tool: request_reset); a lead approves the reset`;
    }
  }
  if (/^\d+ tasks? (?:was|were) completed without verification/.test(reason)) {
    return "no move verifies a completion after the fact: a lead reviews these tasks (the gate keeps listing them)";
  }
  if (reason.startsWith("Goal ")) {
    return "finish an attempt that meets the goal contract, record a trust score, then a verifier runs proofgate evaluate-goal <goal_id> <attempt_id> (MCP tools: finish_attempt, record_trust_score, evaluate_goal)";
  }
  return null;
}

/** The task key of the gate's list when it names one, quoted for a shell; `<task>` (each of them) when it names several. */
function firstKey(list: string): string {
  const key = list.trim();
  return key === "" || /, | and \d+ more$/.test(key) ? "<task>" : shellQuote(key);
}

/** A word a POSIX shell reads back unchanged: bare when it is safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
