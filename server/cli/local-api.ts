import fs from "node:fs";
import { type Db, closeLedger, isPostgresTarget, openLedger } from "@/db/client";
import { type ApiContext, createCallerFactory, router } from "@/server/api/trpc";
import { operatorActor } from "@/server/domain/actors";
import { type Api, DatabaseMissingError } from "./api";
import type { GlobalOptions } from "./options";
import { UsageError } from "./errors";
import { ledgerTarget } from "./ledger";
import type { RuntimeSessionRef } from "@/server/services/runtime/schemas";
import { RUNTIME_SESSION_ENV } from "@/server/domain/runtime-session";
import { ValidationError } from "@/server/domain/errors";

/**
 * The runtime session this command runs in: Claude Code's SessionStart hook exported it
 * (CLAUDE_ENV_FILE). The runtime schemas are loaded only when there is one: a call made outside an
 * agent runtime does not build their zod schemas for Claude Code's hook input (~360 of a local
 * call's page faults).
 */
async function runtimeSessionFromEnv(): Promise<RuntimeSessionRef | undefined> {
  const value = process.env[RUNTIME_SESSION_ENV];
  if (value === undefined || value.trim() === "") return undefined;
  const { parseRuntimeSessionRef } = await import("@/server/services/runtime/schemas");
  try {
    return parseRuntimeSessionRef(value, RUNTIME_SESSION_ENV);
  } catch (error) {
    if (error instanceof ValidationError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The API's routers by namespace, each loaded only when a command calls into it: a local
 * `update-success-criterion` evaluates the criteria router and its services, not the goal
 * machinery, the demo generator or password hashing. The same namespaces as server/api/root.ts
 * (local-api.test.ts keeps the two in step).
 */
export const ROUTERS = {
  session: () => import("@/server/api/routers/session").then((m) => m.sessionRouter),
  task: () => import("@/server/api/routers/task").then((m) => m.taskRouter),
  criteria: () => import("@/server/api/routers/criteria").then((m) => m.criteriaRouter),
  completion: () => import("@/server/api/routers/completion").then((m) => m.completionRouter),
  goal: () => import("@/server/api/routers/goal").then((m) => m.goalRouter),
  attempt: () => import("@/server/api/routers/attempt").then((m) => m.attemptRouter),
  log: () => import("@/server/api/routers/log").then((m) => m.logRouter),
  events: () => import("@/server/api/routers/events").then((m) => m.eventsRouter),
  admin: () => import("@/server/api/routers/admin").then((m) => m.adminRouter),
  account: () => import("@/server/api/routers/account").then((m) => m.accountRouter),
  analytics: () => import("@/server/api/routers/analytics").then((m) => m.analyticsRouter),
  setup: () => import("@/server/api/routers/setup").then((m) => m.setupRouter),
  runtime: () => import("@/server/api/routers/runtime").then((m) => m.runtimeRouter),
} as const;

type Namespace = keyof typeof ROUTERS;

/**
 * Local mode: the routers run in-process as the machine's operator. The ledger opens on the first
 * call: a SQLite file (a write creates it: the first `create-session` of a new project; a read of a
 * file that does not exist is refused instead of quietly starting an empty ledger under a mistyped
 * path) or a PostgreSQL database (`--database-url`, migrated on open).
 */
export function localApi(options: GlobalOptions): Api {
  let db: Db | undefined;
  let opening: Promise<ApiContext> | undefined;
  const open = (kind: "query" | "mutation"): Promise<ApiContext> =>
    (opening ??= (async () => {
      const target = await ledgerTarget(options);
      if (kind === "query" && !isPostgresTarget(target) && target !== ":memory:" && !fs.existsSync(target)) {
        throw new DatabaseMissingError(
          `database unavailable: no database at ${target} (check --db / PROOFGATE_DB or --database-url / PROOFGATE_DATABASE_URL, or create it with proofgate migrate)`,
        );
      }
      const runtimeSession = await runtimeSessionFromEnv();
      db = await openLedger(target);
      return { db, actor: operatorActor(options.agentId ?? "operator"), via: "internal", sameOrigin: true, ...(runtimeSession ? { runtimeSession } : {}) };
    })());
  return {
    ...callerApi(open),
    close: async () => {
      const opened = db;
      db = undefined;
      if (opened) await closeLedger(opened);
    },
  };
}

/**
 * The routers called in-process with the context `open` gives (opened on the first call): local
 * mode's operator, or a server's request authenticated by its token (the MCP endpoint).
 */
export function callerApi(open: (kind: "query" | "mutation") => ApiContext | Promise<ApiContext>): Api {
  const call =
    (kind: "query" | "mutation") =>
    async <T>(path: string, input: unknown): Promise<T> => {
      const [namespace, ...rest] = path.split(".");
      if (!namespace || !(namespace in ROUTERS) || rest.length === 0) throw new Error(`unknown procedure ${path}`);
      const ns = namespace as Namespace;
      const sub = await ROUTERS[ns]();
      let target: unknown = createCallerFactory(router({ [ns]: sub }))(await open(kind))[ns];
      for (const part of rest) target = (target as Record<string, unknown>)[part];
      if (typeof target !== "function") throw new Error(`unknown procedure ${path}`);
      return (await (target as (input: unknown) => Promise<T>)(input)) as T;
    };
  return { mode: "local", query: call("query"), mutate: call("mutation"), close: () => undefined };
}
