/**
 * Which client address to believe (issue 30, item 2). With no trusted proxy the socket's address
 * is the client, whatever X-Forwarded-For says; with PROOFGATE_TRUSTED_PROXIES (comma-separated
 * CIDRs) the client is the right-most address of socket + header chain that is not a trusted proxy.
 */
import { BlockList, isIP } from "node:net";

export const TRUSTED_PROXIES_VARIABLE = "PROOFGATE_TRUSTED_PROXIES";

/** `::ffff:1.2.3.4` is the IPv4 address it carries; other addresses are returned as they are. */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed);
  return mapped ? mapped[1]! : trimmed;
}

/** Parse PROOFGATE_TRUSTED_PROXIES; an invalid entry throws an error naming the variable. */
export function parseTrustedProxies(value: string | undefined): BlockList | null {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [base = "", prefixText] = entry.split("/");
    const address = normalizeAddress(base);
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (family === 0 || !/^\d+$/.test(prefixText ?? String(max)) || prefix > max) {
      throw new Error(`${TRUSTED_PROXIES_VARIABLE}: "${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1/128)`);
    }
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

function trusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The client's address for a request from `remoteAddress` carrying `forwardedFor`. */
export function clientAddress(remoteAddress: string | undefined, forwardedFor: string | undefined, proxies: BlockList | null): string {
  const socket = normalizeAddress(remoteAddress ?? "");
  if (!proxies || !trusted(proxies, socket)) return socket;
  const chain = (forwardedFor ?? "").split(",").map(normalizeAddress).filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i]!;
    if (isIP(hop) === 0) return socket;
    if (!trusted(proxies, hop)) return hop;
  }
  return chain[0] ?? socket;
}
