import { z } from "zod";

/** Shared input pieces. Limits keep a single field from flooding the database. */
export const MAX_TEXT = 100_000;
export const MAX_LABEL = 200;

export const SessionId = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(MAX_LABEL)
  .regex(/^[A-Za-z0-9._:-]+$/, "may contain only letters, digits and . _ : -");
export const Label = z.string().trim().min(1, "must not be empty").max(MAX_LABEL);
export const Text = z.string().max(MAX_TEXT);
export const JsonObject = z.record(z.string(), z.unknown());
