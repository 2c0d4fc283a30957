import type { HookAnswer } from "./hook";

/**
 * The answer as Claude Code reads a hook's JSON output (stdout of a command hook, the body of an
 * `http` hook's 2xx response): `{"decision":"block","reason":…}` holds a stop and feeds the reason
 * to the agent; `systemMessage` is shown to the user; an allow with nothing to say is no output.
 */
export function claudeCodeOutput(answer: HookAnswer): Record<string, string> | null {
  if (answer.decision === "block") return { decision: "block", reason: answer.reason };
  return answer.systemMessage ? { systemMessage: answer.systemMessage } : null;
}
