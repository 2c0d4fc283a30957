import { z } from "zod";
import { DEFAULT_MAX_BLOCKS, MAX_MAX_BLOCKS } from "@/server/domain/stop-hold";
import { ValidationError, fieldPath } from "@/server/domain/errors";
import type { RUNTIMES } from "@/db/schema/runtime";

/** A runtime's own session id (Claude Code's are UUIDs): it names a row, so it is checked, not redacted. */
export const RuntimeSessionId = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200)
  .regex(/^[A-Za-z0-9._:-]+$/, "may contain only letters, digits and . _ : -");

/** The runtime session a call comes from (PROOFGATE_RUNTIME_SESSION, or the X-Proofgate-Runtime-Session header). */
export interface RuntimeSessionRef {
  runtime: (typeof RUNTIMES)[number];
  externalId: string;
}

export { RUNTIME_SESSION_ENV, RUNTIME_SESSION_HEADER } from "@/server/domain/runtime-session";

/**
 * A runtime session reference from its wire form, or undefined when none was given.
 * @throws ValidationError naming `field` (the variable or header) when the value is not an id.
 */
export function parseRuntimeSessionRef(value: string | null | undefined, field: string): RuntimeSessionRef | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const parsed = RuntimeSessionId.safeParse(value);
  if (!parsed.success) throw new ValidationError(field, "runtime.invalid_session_id", parsed.error.issues[0]?.message ?? "invalid");
  return { runtime: "claude-code", externalId: parsed.data };
}

// Claude Code's hook input (its hooks reference): common fields, then each event's own. Unknown
// fields are kept out of the way (Claude Code adds fields over time); a wrong type is refused.
const Common = {
  session_id: RuntimeSessionId,
  transcript_path: z.string().max(4000).optional(),
  cwd: z.string().max(4000).optional(),
  permission_mode: z.string().max(100).optional(),
  /** Present when the hook fires inside a subagent. */
  agent_id: z.string().max(200).optional(),
  agent_type: z.string().max(200).optional(),
};

export const SESSION_START_SOURCES = ["startup", "resume", "clear", "compact"] as const;

const SessionStart = z.looseObject({
  ...Common,
  hook_event_name: z.literal("SessionStart"),
  source: z.enum(SESSION_START_SOURCES).default("startup"),
  model: z.string().max(200).optional(),
});
const PostToolUse = z.looseObject({
  ...Common,
  hook_event_name: z.literal("PostToolUse"),
  tool_name: z.string().min(1).max(200),
  tool_input: z.unknown(),
  tool_response: z.unknown(),
  tool_use_id: z.string().max(200).optional(),
});
const PostToolUseFailure = z.looseObject({
  ...Common,
  hook_event_name: z.literal("PostToolUseFailure"),
  tool_name: z.string().min(1).max(200),
  tool_input: z.unknown(),
  tool_use_id: z.string().max(200).optional(),
  error: z.string().optional(),
  is_interrupt: z.boolean().optional(),
});
const Stop = z.looseObject({ ...Common, hook_event_name: z.enum(["Stop", "SubagentStop"]), stop_hook_active: z.boolean().default(false) });
/** Any other event (PreToolUse, UserPromptSubmit, SessionEnd…): acknowledged, nothing recorded. */
const Other = z.looseObject({ ...Common, hook_event_name: z.string().min(1).max(100) });

export const ClaudeCodeHookInput = z.union([SessionStart, PostToolUse, PostToolUseFailure, Stop]);
export type ClaudeCodeHookInput = z.output<typeof ClaudeCodeHookInput> | (z.output<typeof Other> & { hook_event_name: string });

const BY_EVENT: Record<string, z.ZodType> = { SessionStart, PostToolUse, PostToolUseFailure, Stop, SubagentStop: Stop };

/**
 * Claude Code's hook input, checked against its event's fields.
 * @throws ValidationError naming the first bad field (`session_id`, `stop_hook_active`…), rule `runtime.invalid_hook_input`.
 */
export function parseClaudeCodeHookInput(raw: unknown): ClaudeCodeHookInput {
  const event = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>).hook_event_name : undefined;
  const schema = (typeof event === "string" && BY_EVENT[event]) || Other;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data as ClaudeCodeHookInput;
  const issue = parsed.error.issues[0];
  const message = issue?.code === "invalid_type" && issue.path.length === 0 ? "must be a JSON object" : (issue?.message ?? "invalid");
  throw new ValidationError(fieldPath(issue?.path ?? [], "hook input"), "runtime.invalid_hook_input", message);
}

export const HookOptions = z.strictObject({
  maxBlocks: z.number().int().min(1).max(MAX_MAX_BLOCKS).default(DEFAULT_MAX_BLOCKS),
});
export type HookOptions = z.input<typeof HookOptions>;
