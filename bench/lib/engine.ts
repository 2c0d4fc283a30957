/**
 * The engine under the measured ledger (`--engine sqlite|postgres`): what the measurements need to
 * know about it, so that one measurement code serves both. SQLite's is here; PostgreSQL's, which
 * starts a cluster and copies the dataset into it, is in lib/postgres.ts.
 */
import path from "node:path";
import { databaseFiles, dropFileCache, warmFileCache } from "./file-cache";

export type EngineName = "sqlite" | "postgres";

export interface Engine {
  name: EngineName;
  /** What the server and the command line open: the SQLite file, or the postgres:// URL. */
  ledger: string;
  /** Read the database into the file cache before a group (lib/file-cache.ts says why): ms taken. Absent where it is not done… */
  warmCache?: () => number;
  /** …and then why. */
  warmSkipped?: string;
  /** Empty every cache in front of the database, so the next read is cold; returns how, as a note for the results. */
  dropCaches(): Promise<string>;
  /** A new, empty database of this engine for the engine's own rates (measure/engine-rates.ts): a file or a URL. */
  scratch(name: string): Promise<string>;
  /** What the server needs in its environment on this engine. */
  serverEnv: Record<string, string>;
  /** Stop what the engine started. */
  close(): void;
}

export function sqliteEngine(file: string, dir: string): Engine {
  return {
    name: "sqlite",
    ledger: file,
    warmCache: () => warmFileCache(databaseFiles(file)),
    dropCaches: () => Promise.resolve(dropNote(dropFileCache(databaseFiles(file)), "the database files'")),
    scratch: (name) => Promise.resolve(path.join(dir, `${name}.db`)),
    serverEnv: {},
    close: () => undefined,
  };
}

/** How the file cache was emptied, in the words of the results' notes. */
export function dropNote(how: "drop_caches" | "fadvise", whose: string): string {
  return how === "drop_caches"
    ? "cache dropped with echo 1 > /proc/sys/vm/drop_caches before each call"
    : `not permitted to drop_caches: ${whose} pages dropped with posix_fadvise (dd iflag=nocache) before each call`;
}
