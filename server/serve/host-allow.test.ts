import { describe, expect, it } from "vitest";
import { hostName, hostRule, refusedHost } from "./host-allow";

describe("the Host allow-list (issue 30, item 6)", () => {
  const local = hostRule(undefined);
  const published = hostRule("https://Proofgate.Example.com/");

  it("answers the loopback names with or without a port, whatever PROOFGATE_URL says", () => {
    for (const host of [
      "localhost",
      "localhost:3000",
      "LOCALHOST:3000",
      "app.localhost:80",
      "127.0.0.1:3000",
      "127.1.2.3",
      "[::1]:3000",
      "[::1]",
      "[::ffff:127.0.0.1]:3000",
      "[::ffff:127.0.0.2]",
    ]) {
      expect(refusedHost(host, local), host).toBeNull();
      expect(refusedHost(host, published), host).toBeNull();
    }
  });

  it("answers PROOFGATE_URL's host, on any port and in any case", () => {
    for (const host of ["proofgate.example.com", "PROOFGATE.example.COM:443", "proofgate.example.com.:8443"])
      expect(refusedHost(host, published), host).toBeNull();
  });

  it("refuses another name — a rebinding page's — naming what it answers", () => {
    expect(refusedHost("evil.example:3000", local)).toBe(
      'this server answers a loopback name (set PROOFGATE_URL to the address people use), not "evil.example"',
    );
    expect(refusedHost("evil.example", published)).toBe('this server answers proofgate.example.com (PROOFGATE_URL) or a loopback name, not "evil.example"');
    // Names that only look like the allowed ones.
    for (const host of [
      "localhost.evil.example",
      "127.0.0.1.evil.example",
      "proofgate.example.com.evil.example",
      "10.0.0.5:3000",
      "[::2]:3000",
      "0.0.0.0:3000",
    ]) {
      expect(refusedHost(host, published), host).not.toBeNull();
    }
  });

  it("refuses a missing or malformed Host", () => {
    expect(refusedHost(undefined, local)).toBe("the request has no Host header");
    expect(refusedHost("  ", local)).toBe("the request has no Host header");
    for (const host of ["localhost:port", "local host", "[::1", "[::1]x", "localhost:3000@evil.example", "a/b"]) {
      expect(refusedHost(host, local), host).toMatch(/is not a host name/);
    }
  });

  it("parses Host values and refuses an unparsable PROOFGATE_URL by name", () => {
    expect(hostName("[::1]:8080")).toBe("::1");
    expect(hostName("Example.com:1")).toBe("example.com");
    expect(published.publicHost).toBe("proofgate.example.com");
    expect(hostRule("http://[::1]:3000").publicHost).toBe("::1");
    expect(() => hostRule("proofgate.example.com")).toThrow(/^PROOFGATE_URL: "proofgate.example.com" is not a URL/);
  });
});
