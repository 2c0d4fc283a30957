/**
 * The build's scripts, styles and fonts (`/_next/static/…`), answered by `proofgate serve` itself
 * from the Brotli and gzip copies scripts/compress-static.mjs wrote at build time, instead of by
 * Next's request handler, which routes each one and gzips it again on every request. A first visit
 * to a page asks for a dozen of them; over keep-alive on the 2-core machine Next's handler spends
 * ~3.8 ms of CPU on each. Same answers as Next's: immutable for a year, an ETag (one per encoding),
 * `Vary: Accept-Encoding`, 304 for a matching `If-None-Match`, ranges, HEAD; files are sent by
 * `send` (conditional requests, ranges, read errors) and the encoding chosen with `negotiator`
 * (`q=0` refuses one): Brotli where the client takes it, else gzip, else the file itself.
 *
 * Used only for the build the copies were made from (`.next/proofgate-static.json` names it): a
 * build made afterwards with plain `next build` has none, and Next answers as before. A path not in
 * the build falls through to Next as well (its 404).
 */
import { readFileSync, readdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import Negotiator from "negotiator";
import send from "send";

const PREFIX = "/_next/static/";
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
/** The encodings a copy may have, smallest first, and their files' suffixes. */
const ENCODINGS = [
  ["br", ".br"],
  ["gzip", ".gz"],
] as const;
const TYPES: Record<string, string> = {
  ".js": "application/javascript; charset=UTF-8",
  ".css": "text/css; charset=UTF-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=UTF-8",
  ".txt": "text/plain; charset=UTF-8",
  ".map": "application/json; charset=UTF-8",
};

/** Answers a `/_next/static/` request that names a file of the build: true when it did. */
export type StaticAssets = (req: IncomingMessage, res: ServerResponse) => boolean;

/** The handler for the build in `root`, or null when that build was not compressed by scripts/compress-static.mjs. */
export function staticAssets(root: string): StaticAssets | null {
  const build = path.join(root, ".next");
  const dir = path.join(build, "static");
  let compressedFor: string | undefined;
  try {
    compressedFor = (JSON.parse(readFileSync(path.join(build, "proofgate-static.json"), "utf8")) as { buildId?: string }).buildId;
  } catch {
    return null;
  }
  if (compressedFor !== readFileSync(path.join(build, "BUILD_ID"), "utf8").trim()) return null;

  // Every file of the build, by its path under /_next/static/ (`chunks/x.js`), with the encodings it has copies in.
  const files = new Map<string, string[]>();
  const names = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"));
  const present = new Set(names);
  for (const name of names) {
    if (ENCODINGS.some(([, suffix]) => name.endsWith(suffix))) continue;
    files.set(
      name,
      ENCODINGS.filter(([, suffix]) => present.has(name + suffix)).map(([encoding]) => encoding),
    );
  }

  return (req, res) => {
    if (!req.url?.startsWith(PREFIX) || (req.method !== "GET" && req.method !== "HEAD")) return false;
    const end = req.url.search(/[?#]/);
    // The path as sent (send decodes it itself), and decoded to look it up.
    const sent = req.url.slice(PREFIX.length - 1, end === -1 ? undefined : end);
    const name = safeDecode(sent.slice(1));
    const encodings = name === null ? undefined : files.get(name);
    if (!name || !encodings) return false;

    const accepted = encodings.length ? new Negotiator(req).encodings([...encodings, "identity"]) : [];
    const encoding = ENCODINGS.find(([candidate]) => accepted.includes(candidate));
    const type = TYPES[path.extname(name)];
    if (type) res.setHeader("Content-Type", type);
    if (encodings.length) res.setHeader("Vary", "Accept-Encoding");
    if (encoding) res.setHeader("Content-Encoding", encoding[0]);

    const file = send(req, sent + (encoding?.[1] ?? ""), { root: dir, maxAge: YEAR_MS, immutable: true, index: false });
    file.on("error", (error: { status?: number; statusCode?: number }) => {
      // The file went away after the server started (the build was replaced under it): plain status, nothing half-sent.
      if (res.headersSent) res.destroy();
      else {
        res.removeHeader("Content-Encoding");
        res.writeHead(error.status ?? error.statusCode ?? 500).end();
      }
    });
    file.pipe(res);
    return true;
  };
}

function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
