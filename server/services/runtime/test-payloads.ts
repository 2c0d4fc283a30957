/**
 * Claude Code's hook input as its hooks reference documents it, for the service, command and HTTP
 * tests: the common fields, then each event's own.
 */
export const RUNTIME_ID = "5c4e3f0a-2b1d-4c9e-8f7a-1a2b3c4d5e6f";

const common = (event: string, sessionId = RUNTIME_ID) => ({
  session_id: sessionId,
  transcript_path: `/home/dev/.claude/projects/app/${sessionId}.jsonl`,
  cwd: "/home/dev/app",
  permission_mode: "default",
  hook_event_name: event,
});

export const sessionStart = (source: "startup" | "resume" | "clear" | "compact" = "startup", sessionId = RUNTIME_ID) => ({
  ...common("SessionStart", sessionId),
  source,
  model: "claude-sonnet-4-5",
});

export const postToolUse = (tool_name: string, tool_input: unknown, tool_response: unknown, sessionId = RUNTIME_ID) => ({
  ...common("PostToolUse", sessionId),
  tool_name,
  tool_input,
  tool_response,
  tool_use_id: "toolu_01ABC123",
});

export const postToolUseFailure = (tool_name: string, tool_input: unknown, error: string, is_interrupt = false, sessionId = RUNTIME_ID) => ({
  ...common("PostToolUseFailure", sessionId),
  tool_name,
  tool_input,
  tool_use_id: "toolu_01DEF456",
  error,
  is_interrupt,
});

export const stop = (stop_hook_active = false, sessionId = RUNTIME_ID) => ({
  ...common("Stop", sessionId),
  stop_hook_active,
  last_assistant_message: "All done.",
});

export const subagentStop = (stop_hook_active = false, sessionId = RUNTIME_ID) => ({
  ...common("SubagentStop", sessionId),
  stop_hook_active,
  agent_id: "agent-7f3a",
  agent_type: "Explore",
  agent_transcript_path: "/home/dev/.claude/projects/app/subagents/agent-7f3a.jsonl",
});

/** A Bash call whose command and output carry secrets, and whose output is far over the cap. */
export const secretBash = () =>
  postToolUse(
    "Bash",
    {
      command: "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123' https://api.example.com && export OPENAI_API_KEY=sk-proj0123456789abcdefghij",
      description: "Call the API",
    },
    { stdout: `GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ0123\n${"x".repeat(50_000)}`, stderr: "", interrupted: false, isImage: false },
  );

export const LEAKED = ["abcdefghijklmnopqrstuvwxyz0123", "sk-proj0123456789abcdefghij", "ghp_0123456789abcdefghijABCDEFGHIJ0123", "hunter2-very-secret"];
