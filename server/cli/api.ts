import type { GlobalOptions } from "./options";
import type { SubscribeOptions, SubscriptionEvent } from "./sse";

/**
 * What a command needs from Proofgate: call a procedure by path. Local mode (`--db`) runs the same
 * routers in-process as the machine's operator; remote mode (`--url` + `--token`) calls the
 * server. Same validation, same rules, same errors either way.
 */
export interface Api {
  query<T = unknown>(path: string, input?: unknown): Promise<T>;
  mutate<T = unknown>(path: string, input?: unknown): Promise<T>;
  /** Let go of the database or connection (a PostgreSQL pool would keep the process alive). */
  close(): void | Promise<void>;
  mode: "local" | "remote";
  /** Remote mode only: a subscription over SSE that reconnects after a drop, resuming after the last id. */
  subscribe?<T>(path: string, input: unknown, options: SubscriptionOptions): AsyncGenerator<SubscriptionEvent<T>, void, undefined>;
}

export type SubscriptionOptions = Pick<SubscribeOptions, "lastEventId" | "signal" | "onConnection">;

/**
 * The mode's implementation loads on the first call, so a process pays only for the stack it uses:
 * local mode never loads the HTTP client, remote mode never loads SQLite, drizzle or the services,
 * and a bad argument (refused before any call) loads neither.
 */
export function openApi(options: GlobalOptions): Api {
  const url = options.url ?? process.env.PROOFGATE_URL;
  const remote = Boolean(url) && !options.db && !options.databaseUrl;
  let loading: Promise<Api> | undefined;
  let loaded: Api | undefined;
  const load = () =>
    (loading ??= (remote ? import("./remote-api").then((m) => m.remoteApi(url!, options)) : import("./local-api").then((m) => m.localApi(options))).then(
      (api) => (loaded = api),
    ));
  return {
    mode: remote ? "remote" : "local",
    query: async <T>(path: string, input?: unknown) => (await load()).query<T>(path, input),
    mutate: async <T>(path: string, input?: unknown) => (await load()).mutate<T>(path, input),
    subscribe: remote
      ? async function* <T>(path: string, input: unknown, opts: SubscriptionOptions) {
          yield* (await load()).subscribe!<T>(path, input, opts);
        }
      : undefined,
    close: async () => loaded?.close(),
  };
}

/** A local-mode read named a database file that does not exist (exit 4). */
export class DatabaseMissingError extends Error {}

/**
 * tRPC's error codes, from either mode, as the CLI's exit codes. Recognised by name, not class, so
 * this module (loaded by every call) imports neither tRPC's server nor its client.
 */
export function exitCodeOf(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  const code =
    error.name === "TRPCError"
      ? (error as Error & { code?: string }).code
      : error.name === "TRPCClientError"
        ? ((error as Error & { data?: { code?: string } }).data?.code ?? "UNREACHABLE")
        : undefined;
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

/** A tRPC error from either mode: thrown in-process (TRPCError) or answered by a server (TRPCClientError). */
export function isTrpcError(error: unknown): error is Error & { code?: string; data?: { code?: string; rule?: string; reasons?: readonly string[] } } {
  return error instanceof Error && (error.name === "TRPCError" || error.name === "TRPCClientError");
}
