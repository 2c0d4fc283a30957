/**
 * Which IP addresses a server-side request (a webhook delivery) may never reach: loopback,
 * private, link-local (the cloud metadata address 169.254.169.254 among them), unique-local, and
 * the addresses that are no one's (unspecified, multicast, reserved). Pure: it reads addresses as
 * bytes, so every spelling of one (`::ffff:127.0.0.1`, `::ffff:7f00:1`, `0:0::1`) is judged alike.
 */

/** What kind of non-public address one is. */
export type ForbiddenAddressKind =
  "loopback" | "private" | "carrier-grade NAT" | "link-local" | "cloud metadata" | "unique-local" | "site-local" | "unspecified" | "multicast" | "reserved";

/** `a.b.c.d` in decimal, each part 0–255 without leading zeros (how resolvers and URL parsing write them), as 4 bytes. */
export function parseIPv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((part) => (/^(?:0|[1-9]\d{0,2})$/.test(part) ? Number(part) : NaN));
  return bytes.every((b) => b <= 255) ? bytes : null;
}

/** An IPv6 address (`::`, a trailing dotted IPv4, a `%zone` ignored) as 16 bytes. */
export function parseIPv6(text: string): number[] | null {
  const address = text.replace(/%[^%]*$/, "");
  if (!/^[0-9A-Fa-f:.]+$/.test(address)) return null;
  let tail: number[] = [];
  let groupsText = address;
  if (address.includes(".")) {
    // A dotted IPv4 address ends it (`::ffff:1.2.3.4`) and stands for the last two groups.
    const lastColon = address.lastIndexOf(":");
    const v4 = parseIPv4(address.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    const groupsPart = address.slice(0, lastColon + 1);
    groupsText = groupsPart.endsWith("::") ? groupsPart : groupsPart.slice(0, -1);
  }
  const halves = groupsText.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const wanted = 8 - tail.length / 2;
  if ([...head, ...rest].some((g) => !/^[0-9A-Fa-f]{1,4}$/.test(g))) return null;
  const missing = wanted - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(missing).fill("0"), ...rest].map((g) => parseInt(g, 16));
  return [...all.flatMap((g) => [g >> 8, g & 0xff]), ...tail];
}

const inPrefix = (bytes: readonly number[], prefix: readonly number[], bits: number) => {
  for (let i = 0; i < bits; i++) {
    const bit = (n: number) => (n >> (7 - (i % 8))) & 1;
    if (bit(bytes[Math.floor(i / 8)]!) !== bit(prefix[Math.floor(i / 8)] ?? 0)) return false;
  }
  return true;
};

const V4_RANGES: readonly (readonly [number[], number, ForbiddenAddressKind])[] = [
  [[169, 254, 169, 254], 32, "cloud metadata"],
  [[0], 8, "unspecified"],
  [[10], 8, "private"],
  [[100, 64], 10, "carrier-grade NAT"],
  [[127], 8, "loopback"],
  [[169, 254], 16, "link-local"],
  [[172, 16], 12, "private"],
  [[192, 0, 0], 24, "reserved"],
  [[192, 168], 16, "private"],
  [[198, 18], 15, "reserved"],
  [[224], 4, "multicast"],
  [[240], 4, "reserved"],
];

function ipv4Kind(bytes: readonly number[]): ForbiddenAddressKind | null {
  return V4_RANGES.find(([prefix, bits]) => inPrefix(bytes, prefix, bits))?.[2] ?? null;
}

const zeros = (n: number) => Array<number>(n).fill(0);
/** IPv6 prefixes that carry an IPv4 address in their last 4 bytes, judged as that address. */
const EMBEDDING_V4: readonly (readonly [number[], number])[] = [
  [[...zeros(10), 0xff, 0xff], 96], // IPv4-mapped ::ffff:a.b.c.d
  [[0, 0x64, 0xff, 0x9b, ...zeros(8)], 96], // NAT64 64:ff9b::a.b.c.d
];
const V6_RANGES: readonly (readonly [number[], number, ForbiddenAddressKind])[] = [
  [zeros(16), 128, "unspecified"],
  [[...zeros(15), 1], 128, "loopback"],
  [zeros(12), 96, "reserved"], // IPv4-compatible ::a.b.c.d, deprecated
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48, "private"], // local-use NAT64
  [[1, 0, ...zeros(6)], 64, "reserved"], // discard-only
  [[0xfc], 7, "unique-local"],
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "site-local"],
  [[0xff], 8, "multicast"],
];

function ipv6Kind(bytes: readonly number[]): ForbiddenAddressKind | null {
  if (EMBEDDING_V4.some(([prefix, bits]) => inPrefix(bytes, prefix, bits))) return ipv4Kind(bytes.slice(12));
  // 6to4 (2002:a.b.c.d::/48) routes to the IPv4 address in bytes 2–5.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return ipv4Kind(bytes.slice(2, 6));
  return V6_RANGES.find(([prefix, bits]) => inPrefix(bytes, prefix, bits))?.[2] ?? null;
}

/**
 * What makes `address` (an IPv4 or IPv6 address, IPv6 with or without brackets) one a request may
 * not reach, or null when it is public. Text that is not an IP address is `"not an IP address"`.
 */
export function forbiddenAddressKind(address: string): ForbiddenAddressKind | "not an IP address" | null {
  const text = address.trim().replace(/^\[(.*)\]$/, "$1");
  const v4 = parseIPv4(text);
  if (v4) return ipv4Kind(v4);
  const v6 = text.includes(":") ? parseIPv6(text) : null;
  return v6 ? ipv6Kind(v6) : "not an IP address";
}

/** Whether `address` is an IP address at all (IPv6 with or without brackets). */
export function isIpAddress(address: string): boolean {
  return forbiddenAddressKind(address) !== "not an IP address";
}

/** Names that are loopback by definition (RFC 6761), whatever a resolver says: `localhost` and `*.localhost`. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}
