import { describe, expect, it } from "vitest";
import { clientAddress, normalizeAddress, parseTrustedProxies } from "./client-address";

describe("clientAddress", () => {
  it("ignores a spoofed X-Forwarded-For when no proxy is trusted", () => {
    expect(clientAddress("203.0.113.9", "1.2.3.4", parseTrustedProxies(undefined))).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9", "1.2.3.4", parseTrustedProxies(""))).toBe("203.0.113.9");
  });

  it("ignores the header when the socket is not a trusted proxy", () => {
    expect(clientAddress("203.0.113.9", "1.2.3.4", parseTrustedProxies("10.0.0.0/8"))).toBe("203.0.113.9");
  });

  it("takes the right-most address not in a trusted proxy along the chain", () => {
    const proxies = parseTrustedProxies("10.0.0.0/8, 192.168.1.1");
    expect(clientAddress("10.0.0.2", "6.6.6.6, 198.51.100.7, 192.168.1.1", proxies)).toBe("198.51.100.7");
  });

  it("handles IPv6 and IPv4-mapped IPv6", () => {
    expect(normalizeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(clientAddress("::ffff:127.0.0.1", "9.9.9.9", parseTrustedProxies(undefined))).toBe("127.0.0.1");
    expect(clientAddress("::1", "2001:db8::5", parseTrustedProxies("::1/128"))).toBe("2001:db8::5");
    expect(clientAddress("::ffff:10.1.2.3", "198.51.100.7", parseTrustedProxies("10.0.0.0/8"))).toBe("198.51.100.7");
  });

  it("refuses a bad CIDR with an error naming the variable", () => {
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/PROOFGATE_TRUSTED_PROXIES: "10.0.0.0\/33"/);
    expect(() => parseTrustedProxies("not-an-ip")).toThrow(/PROOFGATE_TRUSTED_PROXIES/);
  });
});
