import { InvalidArgumentError } from "commander";

/**
 * The demo generator's limits (server/demo/generate.ts), repeated here so that parsing `demo`'s
 * options does not load the generator; options.test.ts keeps them equal.
 */
export const MAX_DEMO_SESSIONS = 100_000;
export const MAX_SEED = 2 ** 31 - 1;

/** Commander argument parsers that name the rule they enforce. */
export function positiveInt(max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max) {
      throw new InvalidArgumentError(`must be an integer from 1 to ${max}`);
    }
    return n;
  };
}

/** A seed: 0 to 2^31 − 1 (the generator mixes it into 32-bit state, so larger values would alias). */
export function seed(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > MAX_SEED) throw new InvalidArgumentError(`must be an integer from 0 to ${MAX_SEED}`);
  return n;
}

export interface GlobalOptions {
  db?: string;
  /** A PostgreSQL database (local mode), instead of a SQLite file. */
  databaseUrl?: string;
  url?: string;
  token?: string;
  json?: boolean;
  quiet?: boolean;
  /** Notes on stderr: what a BAZINGA-compatible command translated (extra fields kept as metadata…). */
  verbose?: boolean;
  agentId?: string;
}
