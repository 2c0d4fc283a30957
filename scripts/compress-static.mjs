// After `next build`: writes a Brotli (`.br`) and a gzip (`.gz`) copy beside each compressible file
// of .next/static, once, so that `proofgate serve` sends the build's scripts and styles compressed
// without compressing them again on every request (Next's own handler gzips each response on the
// fly: ~3.8 ms of the server's CPU per script, against ~1.9 ms uncompressed, measured on the 2-core
// machine; a first visit asks for a dozen of them). A file whose copy would not be smaller is left
// alone (the raw file is sent). Last, `.next/proofgate-static.json` records the build it compressed:
// the server uses the copies only for that build (server/serve/static-assets.ts), so a build made
// with plain `next build` afterwards is still served compressed, by Next.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";

const root = process.argv[2] ?? ".";
const dir = path.join(root, ".next", "static");
const COMPRESSIBLE = /\.(js|css|svg|json|txt|map)$/;
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

const started = performance.now();
const files = readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
  .map((entry) => path.join(entry.parentPath, entry.name));

let raw = 0;
let sent = 0;
await Promise.all(
  files.map(async (file) => {
    const content = readFileSync(file);
    const [br, gz] = await Promise.all([
      brotli(content, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        },
      }),
      gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION }),
    ]);
    raw += content.length;
    sent += Math.min(content.length, br.length);
    if (br.length < content.length) writeFileSync(`${file}.br`, br);
    if (gz.length < content.length) writeFileSync(`${file}.gz`, gz);
  }),
);

const buildId = readFileSync(path.join(root, ".next", "BUILD_ID"), "utf8").trim();
writeFileSync(path.join(root, ".next", "proofgate-static.json"), `${JSON.stringify({ buildId, files: files.length })}\n`);
const kb = (n) => `${Math.round(n / 1024)} KB`;
console.log(
  `compressed ${files.length} files of .next/static: ${kb(raw)} → ${kb(sent)} with Brotli, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
