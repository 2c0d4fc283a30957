import { z } from "zod";
import { Label } from "../schemas-common";

export const PurgeInput = z
  .object({
    /** Sessions that ended strictly before this instant are removed. */
    before: z.date(),
    /** Count what would be removed, change nothing. */
    dryRun: z.boolean().default(false),
    reason: Label.optional(),
  })
  .strict();
export type PurgeInput = z.input<typeof PurgeInput>;
