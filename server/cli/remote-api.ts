import { createTRPCUntypedClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import type { Api, SubscriptionOptions } from "./api";
import type { GlobalOptions } from "./options";
import { type HttpRequestInit, request } from "./http";
import { subscribe } from "./sse";
import { RUNTIME_SESSION_ENV, RUNTIME_SESSION_HEADER } from "@/server/domain/runtime-session";

/** The header that carries `--agent-id` (server/api/context.ts reads it; remote-api.test.ts keeps the two equal). */
export const AGENT_HEADER = "x-proofgate-agent";

/** Remote mode: the server's API over HTTP with the token's role; live streams over SSE. */
export function remoteApi(url: string, options: GlobalOptions): Api {
  const token = options.token ?? process.env.PROOFGATE_TOKEN;
  const runtimeSession = process.env[RUNTIME_SESSION_ENV]?.trim();
  const endpoint = `${url.replace(/\/$/, "")}/api/trpc`;
  const headers = (): Record<string, string> => ({
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(options.agentId ? { [AGENT_HEADER]: options.agentId } : {}),
    // Inside a Claude Code session (its SessionStart hook exported the id): sessions this call creates are linked to it.
    ...(runtimeSession ? { [RUNTIME_SESSION_HEADER]: runtimeSession } : {}),
  });
  // tRPC passes the URL as a string and the body as a string (JSON), and reads only `json()`.
  const fetch = ((url: string, init?: HttpRequestInit) => request(url, init)) as unknown as NonNullable<Parameters<typeof httpLink>[0]["fetch"]>;
  const client = createTRPCUntypedClient({ links: [httpLink({ url: endpoint, transformer: superjson, headers, fetch })] });
  return {
    mode: "remote",
    query: <T>(path: string, input?: unknown) => client.query(path, input) as Promise<T>,
    mutate: <T>(path: string, input?: unknown) => client.mutation(path, input) as Promise<T>,
    subscribe: <T>(path: string, input: unknown, opts: SubscriptionOptions) => subscribe<T>({ url: endpoint, path, input, headers: headers(), ...opts }),
    close: () => undefined,
  };
}
