import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, securityHeaders, securityHeadersConfig } from "./security-headers";

const NONCE = "bm9uY2Utb2YtdGhlLXRlc3Q=";

/** The policy's directives by name, each with its sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(";").map((directive) => {
      const [name = "", ...sources] = directive.trim().split(/\s+/);
      return [name, sources];
    }),
  );
}

describe("securityHeadersConfig", () => {
  it("is https only for an https PROOFGATE_URL", () => {
    expect(securityHeadersConfig({ PROOFGATE_URL: "https://proofgate.example.com" })).toEqual({ https: true });
    expect(securityHeadersConfig({ PROOFGATE_URL: " HTTPS://proofgate.example.com/ " })).toEqual({ https: true });
    expect(securityHeadersConfig({ PROOFGATE_URL: "http://localhost:3000" })).toEqual({ https: false });
    expect(securityHeadersConfig({ PROOFGATE_URL: "" })).toEqual({ https: false });
    expect(securityHeadersConfig({})).toEqual({ https: false });
  });
});

describe("securityHeaders", () => {
  it("sends Strict-Transport-Security over https only", () => {
    expect(securityHeaders({ https: true }, NONCE)["Strict-Transport-Security"]).toBe("max-age=63072000; includeSubDomains");
    expect(securityHeaders({ https: false }, NONCE)).not.toHaveProperty("Strict-Transport-Security");
  });

  it("sends nosniff, same-origin referrers and the policy with either scheme", () => {
    for (const https of [true, false]) {
      const headers = securityHeaders({ https }, NONCE);
      expect(headers["X-Content-Type-Options"]).toBe("nosniff");
      expect(headers["Referrer-Policy"]).toBe("same-origin");
      expect(headers["Content-Security-Policy"]).toBe(contentSecurityPolicy(NONCE));
    }
  });
});

describe("contentSecurityPolicy", () => {
  const policy = directives(contentSecurityPolicy(NONCE));

  it("lets scripts run only with this response's nonce, and the scripts they load", () => {
    expect(policy.get("script-src")).toEqual(["'self'", `'nonce-${NONCE}'`, "'strict-dynamic'"]);
    expect(policy.get("script-src")).not.toContain("'unsafe-inline'");
    expect(policy.get("script-src")).not.toContain("'unsafe-eval'");
  });

  it("puts a different nonce in a different response's policy", () => {
    expect(contentSecurityPolicy("b3RoZXI=")).toContain("'nonce-b3RoZXI='");
    expect(contentSecurityPolicy("b3RoZXI=")).not.toContain(NONCE);
  });

  it("forbids framing, plugins, a foreign base URL and posting forms elsewhere", () => {
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("object-src")).toEqual(["'none'"]);
    expect(policy.get("base-uri")).toEqual(["'self'"]);
    expect(policy.get("form-action")).toEqual(["'self'"]);
  });

  it("keeps everything else to this origin: queries and live streams, styles, images and fonts", () => {
    expect(policy.get("default-src")).toEqual(["'self'"]);
    expect(policy.get("connect-src")).toEqual(["'self'"]);
    // Inline style attributes (React's, the charts'); no nonce, which would turn 'unsafe-inline' off.
    expect(policy.get("style-src")).toEqual(["'self'", "'unsafe-inline'"]);
    expect(policy.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
    expect(policy.get("font-src")).toEqual(["'self'", "data:"]);
  });

  it("is what Next reads the nonce from: the first nonce source of script-src", () => {
    const match = /script-src[^;]*'nonce-([A-Za-z0-9+/_-]+={0,2})'/.exec(contentSecurityPolicy(NONCE));
    expect(match?.[1]).toBe(NONCE);
  });
});
