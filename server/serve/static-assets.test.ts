/**
 * `proofgate serve` answers the build's static files (`/_next/static/…`) itself, from the copies
 * scripts/compress-static.mjs writes (server/serve/static-assets.ts): the encoding the client takes,
 * Next's caching headers, conditional requests, ranges, and everything else left to Next.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staticAssets } from "./static-assets";

const SCRIPT = `console.log(${JSON.stringify("proofgate ".repeat(400))});\n`;
const STYLE = `body { color: #123456; }\n`.repeat(50);
const roots: string[] = [];

/** A build folder as `next build` leaves it, compressed (or not) by the build's own script. */
function fakeBuild({ compress = true, buildId = "build-1" } = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "proofgate-static-"));
  roots.push(root);
  mkdirSync(path.join(root, ".next", "static", "chunks"), { recursive: true });
  mkdirSync(path.join(root, ".next", "static", "media"), { recursive: true });
  writeFileSync(path.join(root, ".next", "BUILD_ID"), buildId);
  writeFileSync(path.join(root, ".next", "static", "chunks", "app.js"), SCRIPT);
  writeFileSync(path.join(root, ".next", "static", "chunks", "site.css"), STYLE);
  writeFileSync(path.join(root, ".next", "static", "media", "font.woff2"), Buffer.from([0x77, 0x4f, 0x46, 0x32, 1, 2, 3]));
  writeFileSync(path.join(root, ".next", "server-secret.txt"), "not for the web");
  if (compress) execFileSync(process.execPath, [path.resolve("scripts/compress-static.mjs"), root], { stdio: "pipe" });
  return root;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A server that answers with the handler, else 418 ("Next"). */
async function serverFor(root: string): Promise<{ url: string; close: () => Promise<void>; handled: () => number }> {
  const assets = staticAssets(root);
  if (!assets) throw new Error("no handler for a compressed build");
  let handled = 0;
  const server = http.createServer((req, res) => {
    if (assets(req, res)) handled += 1;
    else res.writeHead(418).end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    handled: () => handled,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function get(url: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe("the build's static files, served by proofgate serve", () => {
  let server: Awaited<ReturnType<typeof serverFor>>;
  beforeAll(async () => {
    server = await serverFor(fakeBuild());
  });
  afterAll(() => server.close());

  it("sends Brotli to a browser that takes it (Chromium's Accept-Encoding), with Next's caching headers", async () => {
    const answer = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(answer.headers["content-type"]).toBe("application/javascript; charset=UTF-8");
    expect(answer.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(answer.headers.vary).toBe("Accept-Encoding");
    expect(answer.headers.etag).toMatch(/^W\/"/);
    expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(SCRIPT.length / 10);
    expect(zlib.brotliDecompressSync(answer.body).toString()).toBe(SCRIPT);
  });

  it("sends gzip where Brotli is not taken, and the file itself where neither is", async () => {
    const gz = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.body).toString()).toBe(SCRIPT);
    const refused = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "br;q=0, gzip;q=0.5" });
    expect(refused.headers["content-encoding"]).toBe("gzip");
    const plain = await get(`${server.url}/_next/static/chunks/app.js`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    const none = await get(`${server.url}/_next/static/chunks/site.css`, { "accept-encoding": "identity" });
    expect(none.headers["content-encoding"]).toBeUndefined();
    expect(none.headers["content-type"]).toBe("text/css; charset=UTF-8");
    expect(none.body.toString()).toBe(STYLE);
  });

  it("gives each encoding its own ETag and answers a matching If-None-Match with 304", async () => {
    const br = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "br" });
    const gz = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "gzip" });
    expect(br.headers.etag).not.toBe(gz.headers.etag);
    const again = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "br", "if-none-match": br.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const stale = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "br", "if-none-match": gz.headers.etag! });
    expect(stale.status).toBe(200);
  });

  it("answers HEAD without a body and a range with 206", async () => {
    const head = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "br" }, "HEAD");
    expect(head.status).toBe(200);
    expect(Number(head.headers["content-length"])).toBeGreaterThan(0);
    expect(head.body.length).toBe(0);
    const range = await get(`${server.url}/_next/static/chunks/app.js`, { range: "bytes=0-10" });
    expect(range.status).toBe(206);
    expect(range.body.toString()).toBe(SCRIPT.slice(0, 11));
  });

  it("sends a file that has no compressed copy as it is (a font)", async () => {
    const font = await get(`${server.url}/_next/static/media/font.woff2`, { "accept-encoding": "br, gzip" });
    expect(font.status).toBe(200);
    expect(font.headers["content-encoding"]).toBeUndefined();
    expect(font.headers.vary).toBeUndefined();
    expect([...font.body]).toEqual([0x77, 0x4f, 0x46, 0x32, 1, 2, 3]);
  });

  it("leaves to Next whatever is not a file of the build: other paths, unknown files, a way out of the folder, other methods", async () => {
    const before = server.handled();
    for (const url of [
      "/sessions",
      "/_next/static/chunks/missing.js",
      "/_next/static/chunks",
      "/_next/static/media/",
      "/_next/static/chunks/app.js.br",
      "/_next/static/..%2fserver-secret.txt",
      "/_next/static/../server-secret.txt",
      "/_next/static/%E0%A4%A",
      "/_next/data/build-1/x.json",
    ]) {
      const answer = await get(`${server.url}${url}`);
      expect(answer.status, url).toBe(418);
    }
    const post = await get(`${server.url}/_next/static/chunks/app.js`, {}, "POST");
    expect(post.status).toBe(418);
    expect(server.handled()).toBe(before);
  });

  it("ignores a query string, as Next does", async () => {
    const answer = await get(`${server.url}/_next/static/chunks/app.js?dpl=abc`, { "accept-encoding": "br" });
    expect(answer.status).toBe(200);
    expect(zlib.brotliDecompressSync(answer.body).toString()).toBe(SCRIPT);
  });
});

describe("which builds it serves", () => {
  it("none that the build's script did not compress (plain `next build`): Next answers as before", () => {
    expect(staticAssets(fakeBuild({ compress: false }))).toBeNull();
  });

  it("none compressed for another build: the marker names the build it was made for", () => {
    const root = fakeBuild();
    writeFileSync(path.join(root, ".next", "BUILD_ID"), "build-2");
    expect(staticAssets(root)).toBeNull();
  });

  it("answers 404, and keeps serving, when a file went away after the server started", async () => {
    const root = fakeBuild();
    const server = await serverFor(root);
    try {
      for (const suffix of ["", ".br", ".gz"]) unlinkSync(path.join(root, ".next", "static", "chunks", `app.js${suffix}`));
      const gone = await get(`${server.url}/_next/static/chunks/app.js`, { "accept-encoding": "br" });
      expect(gone.status).toBe(404);
      expect(gone.headers["content-encoding"]).toBeUndefined();
      const css = await get(`${server.url}/_next/static/chunks/site.css`, { "accept-encoding": "br" });
      expect(css.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
