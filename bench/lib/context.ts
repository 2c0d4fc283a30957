import type { Db } from "@/db/client";
import { createCaller } from "@/server/api/root";
import type { Actor } from "@/server/domain/actors";
import type { Engine } from "./engine";
import type { Recorder } from "./results";
import type { Server, ServerOptions } from "./proc";

export type Caller = ReturnType<typeof createCaller>;

export interface Tokens {
  lead: string;
  viewer: string;
  agent: string;
  verifier: string;
  orchestrator: string;
}

export interface BenchContext {
  quick: boolean;
  rec: Recorder;
  /** The run's temporary folder (databases, the BAZINGA file). */
  dir: string;
  /** The measured ledger, shared by the server, the CLI and the in-process caller: a SQLite file or a postgres:// URL. */
  db: string;
  /** The engine under `db` (`--engine`): caches, scratch databases, the server's environment. */
  engine: Engine;
  /** This process's own handle on `db` (the in-process caller, raw reads with db/query.ts). */
  local: Db;
  server: Server;
  /** How `server` was started (workers, API path): a measurement that starts its own server starts it the same way. */
  serverOptions: ServerOptions;
  basePort: number;
  tokens: Tokens;
  /** A signed-in person for the browser. */
  person: { email: string; password: string };
  /** Repetitions: the full run's count, or the quick run's. */
  reps: (full: number, quick: number) => number;
}

const BENCH_LEAD: Actor = { principalId: "user:bench", principalKind: "user", role: "lead", label: "bench@proofgate.test" };

/** tRPC's in-process caller on a connection: the procedure's own time, with no HTTP around it. */
export function callerOn(db: Db, actor: Actor = BENCH_LEAD): Caller {
  return createCaller({ db, actor, via: "internal", sameOrigin: true });
}

/** Deterministic choice of n items (a bench must pick the same rows on every run). */
export function sample<T>(items: readonly T[], n: number, seed = 42): T[] {
  let state = seed >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: T[] = [];
  for (let i = 0; i < n && items.length; i++) out.push(items[Math.floor(rand() * items.length)]!);
  return out;
}
