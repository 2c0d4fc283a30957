import { TRPCClientError, createTRPCUntypedClient, httpLink } from "@trpc/client";
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { type Db, openDatabase, resolveDbPath } from "@/db/client";
import { AGENT_HEADER } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { operatorActor } from "@/server/domain/actors";
import type { GlobalOptions } from "./options";

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
}

export function openApi(options: GlobalOptions): Api {
  const url = options.url ?? process.env.PROOFGATE_URL;
  if (url && !options.db) return remoteApi(url, options);
  return localApi(options);
}

function localApi(options: GlobalOptions): Api {
  const db = openDatabase(resolveDbPath(options.db));
  const caller = createCaller({ db, actor: operatorActor(options.agentId ?? "operator"), via: "internal", sameOrigin: true });
  const call = async <T>(path: string, input: unknown): Promise<T> => {
    let target: unknown = caller;
    for (const part of path.split(".")) target = (target as Record<string, unknown>)[part];
    if (typeof target !== "function") throw new Error(`unknown procedure ${path}`);
    return (await (target as (input: unknown) => Promise<T>)(input)) as T;
  };
  return { mode: "local", db, query: call, mutate: call, close: () => db.$client.close() };
}

function remoteApi(url: string, options: GlobalOptions): Api {
  const token = options.token ?? process.env.PROOFGATE_TOKEN;
  const client = createTRPCUntypedClient({
    links: [
      httpLink({
        url: `${url.replace(/\/$/, "")}/api/trpc`,
        transformer: superjson,
        headers: () => ({
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(options.agentId ? { [AGENT_HEADER]: options.agentId } : {}),
        }),
      }),
    ],
  });
  return {
    mode: "remote",
    query: <T>(path: string, input?: unknown) => client.query(path, input) as Promise<T>,
    mutate: <T>(path: string, input?: unknown) => client.mutation(path, input) as Promise<T>,
    close: () => undefined,
  };
}

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
