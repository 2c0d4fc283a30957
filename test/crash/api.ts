// The clients' side of the wire: a typed tRPC client per token (as an agent would hold one), and the
// one question a crash test asks of every call — did the server acknowledge it, refuse it, or was
// the answer lost?
import { TRPCClientError, createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "@/server/api/root";
import { type HttpRequestInit, request } from "@/server/cli/http";
import type { Ledger } from "./ledger";

export type Client = ReturnType<typeof createTRPCClient<AppRouter>>;

/** A client authenticated by `token`, acting under `label`. Each request opens its own connection. */
export function apiClient(baseUrl: string, token: string, label: string): Client {
  // The CLI's node:http client: no pooled sockets that a kill leaves half-open.
  const fetch = ((url: string, init?: HttpRequestInit) => request(url, init)) as unknown as NonNullable<Parameters<typeof httpLink>[0]["fetch"]>;
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${baseUrl}/api/trpc`, transformer: superjson, headers: { authorization: `Bearer ${token}`, "x-proofgate-agent": label }, fetch })],
  });
}

export type Outcome<T> =
  | { ok: true; value: T }
  /** No answer: `sent` unless the connection was refused (the server down, nothing sent). Sent, the write may or may not be stored. */
  | { ok: false; answered: false; sent: boolean }
  | { ok: false; answered: true; code: string; message: string };

/**
 * Make one call. An answer from the server is an acknowledgement (or a refusal, with its code); no
 * answer — the connection refused or cut by the kill — leaves the write's fate unknown, which is
 * allowed: the checks then demand it be stored whole or not at all.
 */
export async function call<T>(ledger: Ledger, send: () => Promise<T>): Promise<Outcome<T>> {
  ledger.inFlight += 1;
  try {
    return { ok: true, value: await send() };
  } catch (error) {
    const code = error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
    if (code) return { ok: false, answered: true, code, message: (error as Error).message };
    return { ok: false, answered: false, sent: causeCode(error) !== "ECONNREFUSED" };
  } finally {
    ledger.inFlight -= 1;
  }
}

/** A write: as `call`, counting a sent write whose answer was lost. */
export async function callWrite<T>(ledger: Ledger, send: () => Promise<T>): Promise<Outcome<T>> {
  const outcome = await call(ledger, send);
  if (!outcome.ok && !outcome.answered && outcome.sent) ledger.unanswered += 1;
  return outcome;
}

function causeCode(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === "string") return e.code;
  }
  return undefined;
}

/** Record a refusal nobody expected: the run fails. */
export function unexpected(ledger: Ledger, what: string, outcome: { code: string; message: string }): void {
  ledger.serverErrors.push(`${what}: ${outcome.code} ${outcome.message}`);
}
