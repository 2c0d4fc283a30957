import { z } from "zod";
import { ENFORCEMENTS, SESSION_SOURCES, SESSION_STATUSES } from "@/server/domain/vocabulary";
import { RUNTIME_SESSION_SPEC, RUNTIME_SESSION_SPEC_RULE } from "@/server/domain/runtime-session";
import { JsonObject, Label, SessionId, Text } from "../schemas-common";

export const CreateSessionInput = z
  .object({
    /** Caller-given (e.g. `bazinga_20250112_143022`); generated when omitted. */
    id: SessionId.optional(),
    requirements: Text.nullish(),
    mode: Label.nullish(),
    initialBranch: Label.nullish(),
    repoPath: z.string().max(4000).nullish(),
    models: z
      .record(Label, z.string().max(200))
      .refine((models) => Object.keys(models).length <= 50, "at most 50 models")
      .nullish(),
    flags: JsonObject.nullish(),
    metadata: JsonObject.nullish(),
    source: z.enum(SESSION_SOURCES).optional(),
    enforcement: z.enum(ENFORCEMENTS).optional(),
    /** The agent runtime session to link it to, `<runtime>:<id>`, where the call does not come from inside one (PROOFGATE_RUNTIME_SESSION). */
    runtimeSession: z.string().trim().max(250).regex(RUNTIME_SESSION_SPEC, RUNTIME_SESSION_SPEC_RULE).optional(),
  })
  .strict();
export type CreateSessionInput = z.infer<typeof CreateSessionInput>;

export const GetSessionInput = z.object({ id: SessionId }).strict();
export type GetSessionInput = z.infer<typeof GetSessionInput>;

export const UpdateSessionStatusInput = z.object({ sessionId: SessionId, status: z.enum(SESSION_STATUSES) }).strict();
export type UpdateSessionStatusInput = z.infer<typeof UpdateSessionStatusInput>;

export const SetEnforcementInput = z.object({ sessionId: SessionId, enforcement: z.enum(ENFORCEMENTS), reason: z.string().trim().min(1).max(4000) }).strict();
export type SetEnforcementInput = z.infer<typeof SetEnforcementInput>;

export const EnforcementHistoryInput = z.object({ sessionId: SessionId, limit: z.number().int().min(1).max(100).default(20) }).strict();
export type EnforcementHistoryInput = z.input<typeof EnforcementHistoryInput>;
