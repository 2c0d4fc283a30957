/**
 * How a command learns which agent runtime session it runs in: the environment variable Claude
 * Code's SessionStart hook exports into the runtime's later commands, and the header a remote call
 * carries it in. Kept here, with nothing imported, so that the command line reads them without
 * loading the runtime's zod schemas (server/services/runtime/schemas.ts).
 */
export const RUNTIME_SESSION_ENV = "PROOFGATE_RUNTIME_SESSION";
export const RUNTIME_SESSION_HEADER = "x-proofgate-runtime-session";
