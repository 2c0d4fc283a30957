/**
 * The security headers `proofgate serve` puts on every response — pages, the API, event streams,
 * downloads, the build's static files (issue 30, item 8). Pure: the caller makes the nonce per
 * request and reads the environment once (`securityHeadersConfig`).
 */

export interface SecurityHeadersConfig {
  /** The dashboard is reached over https (PROOFGATE_URL says so): add Strict-Transport-Security. */
  https: boolean;
}

/** Read once, when the server starts: https when PROOFGATE_URL, the public address, is an https URL. */
export function securityHeadersConfig(env: Readonly<Record<string, string | undefined>>): SecurityHeadersConfig {
  return { https: /^https:\/\//i.test(env.PROOFGATE_URL?.trim() ?? "") };
}

/**
 * The Content-Security-Policy for one response. Scripts run only with this response's nonce (Next
 * reads it from the request's copy of this header and puts it on every script it writes);
 * `'strict-dynamic'` lets those scripts load the page's other chunks. Styles allow inline: React and
 * the charts write `style="…"` attributes, which a nonce cannot cover (and a nonce in style-src would
 * switch `'unsafe-inline'` off).
 */
export function contentSecurityPolicy(nonce: string): string {
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    ["script-src", "'self'", `'nonce-${nonce}'`, "'strict-dynamic'"],
    ["style-src", "'self'", "'unsafe-inline'"],
    ["img-src", "'self'", "data:", "blob:"],
    ["font-src", "'self'", "data:"],
    // tRPC's queries and its live stream (EventSource) go to this origin only.
    ["connect-src", "'self'"],
    ["object-src", "'none'"],
    ["base-uri", "'self'"],
    ["form-action", "'self'"],
    ["frame-ancestors", "'none'"],
  ];
  return directives.map((directive) => directive.join(" ")).join("; ");
}

/** Every security header for one response, by header name. */
export function securityHeaders(config: SecurityHeadersConfig, nonce: string): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(nonce),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    ...(config.https ? { "Strict-Transport-Security": "max-age=63072000; includeSubDomains" } : {}),
  };
}
