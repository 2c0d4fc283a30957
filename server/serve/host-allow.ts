/**
 * Which `Host` the production server answers (issue 30, item 6). A page on another site whose name
 * the attacker has pointed at 127.0.0.1 (DNS rebinding) reaches a local Proofgate with its own name
 * in `Host` — and `Origin` — so a check that compares the two passes; refusing every name but this
 * server's own closes that door before authentication and before the first-admin setup. Its own
 * names are PROOFGATE_URL's host and the loopback names (`localhost`, `*.localhost`, 127.0.0.0/8,
 * `::1`), which an attacker's page cannot send.
 */
import { forbiddenAddressKind, isLoopbackName } from "@/server/domain/ip-address";

export interface HostRule {
  /** PROOFGATE_URL's host name, lower-case, when it is set. */
  publicHost: string | null;
}

/** The rule from PROOFGATE_URL; an unparsable URL throws an error naming the variable. */
export function hostRule(publicUrl: string | undefined): HostRule {
  const value = publicUrl?.trim();
  if (!value) return { publicHost: null };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`PROOFGATE_URL: "${value}" is not a URL (e.g. https://proofgate.example.com)`);
  }
  return { publicHost: bareHost(url.hostname) };
}

/** `[::1]` → `::1`, `Example.COM.` → `example.com`. */
function bareHost(host: string): string {
  const lower = host.toLowerCase();
  const unbracketed = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith(".") ? unbracketed.slice(0, -1) : unbracketed;
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]`, `[v6]:port`); null when malformed. */
export function hostName(header: string | undefined): string | null {
  const value = header?.trim();
  if (!value) return null;
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    if (end < 0) return null;
    const rest = value.slice(end + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return null;
    return bareHost(value.slice(0, end + 1));
  }
  const colon = value.lastIndexOf(":");
  const name = colon < 0 ? value : value.slice(0, colon);
  if (colon >= 0 && !/^\d{1,5}$/.test(value.slice(colon + 1))) return null;
  if (!/^[\w.-]+$/.test(name)) return null;
  return bareHost(name);
}

/** The domain's loopback rule, the one webhook targets are judged by: every spelling of 127/8 and ::1 (IPv4-mapped too). */
function isLoopback(name: string): boolean {
  return isLoopbackName(name) || forbiddenAddressKind(name) === "loopback";
}

/** Null when the server answers this `Host`; otherwise why not, for the 421's body. */
export function refusedHost(header: string | undefined, rule: HostRule): string | null {
  const name = hostName(header);
  if (name === null) return header?.trim() ? `the Host header "${header}" is not a host name` : "the request has no Host header";
  if (isLoopback(name) || name === rule.publicHost) return null;
  const own = rule.publicHost ? `${rule.publicHost} (PROOFGATE_URL) or a loopback name` : "a loopback name (set PROOFGATE_URL to the address people use)";
  return `this server answers ${own}, not "${name}"`;
}
