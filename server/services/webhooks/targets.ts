/**
 * Where a delivery may go (issue 30, item 7): the receiver's name is resolved once, every address
 * it resolved to is checked (server/domain/webhooks.ts, resolvedAddressProblem), and the connection
 * is made to those checked addresses only — a second lookup by the HTTP client, which a name with a
 * short TTL could answer with 127.0.0.1 (DNS rebinding), never happens. TLS still names the host
 * (SNI and the certificate check), and so does the `Host` header.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { WEBHOOK_ALLOW_PRIVATE_VARIABLE, resolvedAddressProblem, webhookHostname } from "@/server/domain/webhooks";
import { isIpAddress } from "@/server/domain/ip-address";

/** One address a name resolved to, as dns.lookup gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a name resolves to (dns.lookup with `all`); injected by tests, which need no DNS. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: ResolveHost = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1: receivers on loopback, private, link-local and unique-local addresses are allowed. */
export function privateTargetsAllowed(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env[WEBHOOK_ALLOW_PRIVATE_VARIABLE]?.trim() === "1";
}

export type Resolution = { ok: true; addresses: ResolvedAddress[] } | { ok: false; refused: boolean; error: string };

/** Settle with `promise`, or reject with the signal's reason once it aborts (dns.lookup cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener("abort", onAbort), reject(error as Error)),
    );
  });
}

/**
 * The addresses a delivery to `url` may connect to: an IP literal is itself; a name is resolved
 * once with `resolve`. Refused (`refused: true`) when any of them may not be reached.
 */
export async function resolveReceiver(url: string, options: { allowPrivate: boolean; resolve: ResolveHost; signal: AbortSignal }): Promise<Resolution> {
  const host = webhookHostname(url);
  if (host === null) return { ok: false, refused: true, error: "the receiver's URL does not parse" };
  let addresses: ResolvedAddress[];
  if (isIpAddress(host)) addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  else {
    try {
      addresses = await untilAborted(options.resolve(host), options.signal);
    } catch (error) {
      if (options.signal.aborted) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      return { ok: false, refused: false, error: `could not resolve ${host}: ${code ?? (error as Error).message}` };
    }
  }
  if (addresses.length === 0) return { ok: false, refused: false, error: `could not resolve ${host}: no address` };
  const problem = resolvedAddressProblem(
    host,
    addresses.map((a) => a.address),
    options.allowPrivate,
  );
  return problem ? { ok: false, refused: true, error: problem } : { ok: true, addresses };
}

/** A lookup for the HTTP client that answers with the checked addresses, whatever name it is asked. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const first = addresses[0]!;
    if (options.all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, [...addresses]);
    else callback(null, first.address, first.family);
  };
}

/**
 * POST `body` to `url`, connecting only to `addresses` (a fresh connection, no pooled socket that
 * could lead elsewhere). Resolves with the status once the answer's head arrives; its body is not read.
 */
export function postPinned(
  url: string,
  addresses: readonly ResolvedAddress[],
  request: { body: string; headers: Record<string, string> },
  signal: AbortSignal,
): Promise<{ status: number; statusText: string }> {
  const client = new URL(url).protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: "POST",
        headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
        lookup: pinnedLookup(addresses),
        agent: false,
        signal,
      },
      (response) => {
        resolve({ status: response.statusCode ?? 0, statusText: response.statusMessage ?? "" });
        response.destroy();
      },
    );
    req.on("error", reject);
    req.end(request.body);
  });
}
