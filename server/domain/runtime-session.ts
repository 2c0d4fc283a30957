/**
 * How a command learns which agent runtime session it runs in: the environment variable Claude
 * Code's SessionStart hook exports into the runtime's later commands, and the header a remote call
 * carries it in. Kept here, with nothing imported, so that the command line reads them without
 * loading the runtime's zod schemas (server/services/runtime/schemas.ts).
 */
export const RUNTIME_SESSION_ENV = "PROOFGATE_RUNTIME_SESSION";
export const RUNTIME_SESSION_HEADER = "x-proofgate-runtime-session";

/** Agent runtimes whose hooks report to Proofgate. */
export const RUNTIMES = ["claude-code"] as const;
export type Runtime = (typeof RUNTIMES)[number];

/**
 * The explicit form of a runtime session, `<runtime>:<its session id>` (`create-session
 * --runtime-session claude-code:…`, the MCP tool's `runtimeSession`): where the runtime cannot
 * export PROOFGATE_RUNTIME_SESSION into the agent's commands. The id's rule is the hook input's
 * (server/services/runtime/schemas.ts RuntimeSessionId).
 */
export const RUNTIME_SESSION_SPEC = new RegExp(`^(?:${RUNTIMES.join("|")}):[A-Za-z0-9._:-]{1,200}$`);
export const RUNTIME_SESSION_SPEC_RULE = `must be <runtime>:<session id> with the runtime one of ${RUNTIMES.join(", ")} and the id of letters, digits and . _ : - (at most 200)`;

/** The runtime and id of a spec that matched RUNTIME_SESSION_SPEC. */
export function runtimeSessionOfSpec(spec: string): { runtime: Runtime; externalId: string } {
  const at = spec.indexOf(":");
  return { runtime: spec.slice(0, at) as Runtime, externalId: spec.slice(at + 1) };
}
