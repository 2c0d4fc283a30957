/**
 * Where to go after signing in: `next` resolved as a URL on this site, or "/" when it is not one.
 * The check is the browser's own parsing, not a prefix test: `/\evil.example`, `//evil`, a tab
 * inside `/<tab>/evil` and the like all resolve to another host, so they fall back to "/".
 */
const SITE = "http://proofgate.invalid";

export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(next, SITE);
  } catch {
    return "/";
  }
  if (url.origin !== SITE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // "/.//evil" normalises to the path "//evil", which a browser would read as another host.
  return path.startsWith("//") || path.startsWith("/\\") ? "/" : path;
}
