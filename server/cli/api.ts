import fs from "node:fs";
import { TRPCClientError, createTRPCUntypedClient, httpLink } from "@trpc/client";
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { type Db, openDatabase, resolveDbPath } from "@/db/client";
import { AGENT_HEADER } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { operatorActor } from "@/server/domain/actors";
import type { GlobalOptions } from "./options";
import { type SubscribeOptions, type SubscriptionEvent, subscribe } from "./sse";

/**
 * What a command needs from Proofgate: call a procedure by path. Local mode (`--db`) runs the same
 * routers in-process as the machine's operator; remote mode (`--url` + `--token`) calls the
 * server. Same validation, same rules, same errors either way.
 */
export interface Api {
  query<T = unknown>(path: string, input?: unknown): Promise<T>;
  mutate<T = unknown>(path: string, input?: unknown): Promise<T>;
  close(): void;
  mode: "local" | "remote";
  /** Local mode only: the open database (operator commands such as backup). */
  db?: Db;
  /** Remote mode only: a subscription over SSE that reconnects after a drop, resuming after the last id. */
  subscribe?<T>(path: string, input: unknown, options: Pick<SubscribeOptions, "lastEventId" | "signal" | "onConnection">): AsyncGenerator<SubscriptionEvent<T>, void, undefined>;
}

export function openApi(options: GlobalOptions): Api {
  const url = options.url ?? process.env.PROOFGATE_URL;
  if (url && !options.db) return remoteApi(url, options);
  return localApi(options);
}

/**
 * Local mode opens the file on the first call. A write creates it (the first `create-session` of a
 * new project); a read of a file that does not exist is refused instead of quietly starting an
 * empty ledger under a mistyped path.
 */
function localApi(options: GlobalOptions): Api {
  const file = resolveDbPath(options.db);
  let db: Db | undefined;
  let caller: ReturnType<typeof createCaller> | undefined;
  const open = (kind: "query" | "mutation") => {
    if (!db) {
      if (kind === "query" && file !== ":memory:" && !fs.existsSync(file)) {
        throw new DatabaseMissingError(`database unavailable: no database at ${file} (check --db / PROOFGATE_DB, or create it with proofgate migrate)`);
      }
      db = openDatabase(file);
      caller = createCaller({ db, actor: operatorActor(options.agentId ?? "operator"), via: "internal", sameOrigin: true });
    }
    return caller!;
  };
  const call = (kind: "query" | "mutation") => async <T>(path: string, input: unknown): Promise<T> => {
    let target: unknown = open(kind);
    for (const part of path.split(".")) target = (target as Record<string, unknown>)[part];
    if (typeof target !== "function") throw new Error(`unknown procedure ${path}`);
    return (await (target as (input: unknown) => Promise<T>)(input)) as T;
  };
  return {
    mode: "local",
    get db() {
      open("mutation");
      return db;
    },
    query: call("query"),
    mutate: call("mutation"),
    close: () => db?.$client.close(),
  };
}

function remoteApi(url: string, options: GlobalOptions): Api {
  const token = options.token ?? process.env.PROOFGATE_TOKEN;
  const endpoint = `${url.replace(/\/$/, "")}/api/trpc`;
  const headers = (): Record<string, string> => ({
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(options.agentId ? { [AGENT_HEADER]: options.agentId } : {}),
  });
  const client = createTRPCUntypedClient({ links: [httpLink({ url: endpoint, transformer: superjson, headers })] });
  return {
    mode: "remote",
    query: <T>(path: string, input?: unknown) => client.query(path, input) as Promise<T>,
    mutate: <T>(path: string, input?: unknown) => client.mutation(path, input) as Promise<T>,
    subscribe: <T>(path: string, input: unknown, opts: Pick<SubscribeOptions, "lastEventId" | "signal" | "onConnection">) =>
      subscribe<T>({ url: endpoint, path, input, headers: headers(), ...opts }),
    close: () => undefined,
  };
}

/** A local-mode read named a database file that does not exist (exit 4). */
export class DatabaseMissingError extends Error {}

/** tRPC's error codes, from either mode, as the CLI's exit codes. */
export function exitCodeOf(error: unknown): number | null {
  const code = error instanceof TRPCError ? error.code : error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
  if (error instanceof TRPCClientError && !code) return 4;
  switch (code) {
    case "BAD_REQUEST":
    case "PARSE_ERROR":
    case "PAYLOAD_TOO_LARGE":
      return 2;
    case "NOT_FOUND":
      return 3;
    case "FORBIDDEN":
    case "UNAUTHORIZED":
    case "CONFLICT":
      return 1;
    case undefined:
      return null;
    default:
      return 4;
  }
}
