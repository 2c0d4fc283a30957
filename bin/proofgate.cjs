#!/usr/bin/env node
// The `proofgate` executable: runs the bundled CLI (dist/cli.cjs, built first on a fresh checkout)
// from V8's code cache. Compiling the 1.5 MB bundle is about a third of a call's start-up; the
// first call after a build saves the compiled code beside the bundle (keyed to the build's size and
// time, since V8 checks only the length) and every later call reuses it. An unwritable dist/ only
// means no cache.
//
//
// CommonJS, not an ES module: Node starts an ES module entry through its ESM loader, which it compiles
// first (~5 ms of CPU, ~9 ms wall on every call; an empty .mjs against an empty .cjs). bin/proofgate.mjs,
// the older path, is a symlink to this file: Node picks the loader from the entry's real path, so that
// path runs as CommonJS too.
"use strict";
const fs = process.getBuiltinModule("node:fs");
const path = process.getBuiltinModule("node:path");
const vm = process.getBuiltinModule("node:vm");
// The CommonJS loader's own createRequire: node:module (the public module) loads the ESM loader and
// source-map support first, a dozen internal modules no call uses.
const createRequire = module.constructor.createRequire ?? process.getBuiltinModule("node:module").createRequire;

const root = path.dirname(__dirname);
const dist = path.join(root, "dist");
const command = commandOf(process.argv);
// `hook` runs on every tool call of an agent runtime: it has a bundle of its own (dist/hook.cjs,
// a fraction of the CLI's), so a hook call reads and deserialises only what a hook needs.
const name = command === "hook" ? "hook.cjs" : "cli.cjs";
const bundle = path.join(dist, name);
if (fs.existsSync(bundle)) run();
else
  buildFirst().then(run, (error) => {
    process.stderr.write(`proofgate: could not build ${path.relative(root, bundle)}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });

async function buildFirst() {
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const { buildCli } = await import("../scripts/build-cli.mjs");
    await buildCli();
  } finally {
    process.chdir(cwd);
  }
}

function run() {
  const read = readFile(bundle);
  const { size, mtimeMs } = read;
  // The bundle is ASCII (scripts/build-cli.mjs checks): read as latin1, a plain copy, not UTF-8 decoding.
  const source = read.bytes.toString("latin1");
  // V8 rejects a cache made by another Node version or under other V8 flags: each gets its own file,
  // so alternating between them does not rewrite one cache on every call.
  const build = `${name}.${size}-${Math.trunc(mtimeMs)}-`;
  // One cache per command as well: a cache holds the functions the call that wrote it compiled, so
  // `update-success-criterion` run from the cache `demo` left compiles its own code again on every
  // call (~15% of the bundle's time) and deserialises the generator's for nothing.
  const cacheFile = path.join(
    dist,
    `${build}${fnv1a([process.version, process.arch, ...process.execArgv, process.env.NODE_OPTIONS ?? ""].join("\0"))}-${command}.v8cache`,
  );
  let cachedData;
  try {
    // Into the buffer the source was read into (copied into a string above, so free again): its
    // memory has been touched already, and a first touch of a page is what costs most here (5-20 µs
    // a page on the microVMs this runs on; the cache is ~280 pages).
    cachedData = readFile(cacheFile, read.bytes).bytes;
  } catch {
    cachedData = undefined;
  }
  // The build writes the bundle wrapped as the function called below (scripts/build-cli.mjs,
  // RUN_WRAPPER), so V8 compiles the text as read; wrapping it here made V8 copy all of it first.
  // A bundle built before that is wrapped here.
  const text = source.startsWith("(function (exports, require, module, __filename, __dirname) {")
    ? source
    : `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  // No import() inside: Node 20 drops a script's dynamic-import loader when it comes from the cache
  // (scripts/build-cli.mjs refuses a bundle that has one).
  const script = new vm.Script(text, { filename: bundle, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    // At exit, so the functions this call compiled are in the cache too.
    process.once("exit", () => {
      try {
        const temp = `${cacheFile}.${process.pid}`;
        fs.writeFileSync(temp, script.createCachedData());
        fs.renameSync(temp, cacheFile);
        // Caches of earlier builds are of no use to anyone.
        for (const old of fs.readdirSync(dist))
          if (old.startsWith(`${name}.`) && old.endsWith(".v8cache") && !old.startsWith(build)) fs.rmSync(path.join(dist, old), { force: true });
      } catch {
        // Read-only install or a race with another call: run without a cache.
      }
    });
  }
  const cjsModule = { exports: {} };
  script.runInThisContext()(cjsModule.exports, createRequire(bundle), cjsModule, bundle, dist);
}

/** A file's bytes, read into `into` when they fit there, else into a new buffer; with the file's size and time. */
function readFile(file, into) {
  const fd = fs.openSync(file, "r");
  try {
    const { size, mtimeMs } = fs.fstatSync(fd);
    const buffer = into !== undefined && size <= into.length ? into.subarray(0, size) : Buffer.allocUnsafeSlow(size);
    let length = 0;
    for (let n; length < size && (n = fs.readSync(fd, buffer, length, size - length, length)) > 0;) length += n;
    return { bytes: buffer.subarray(0, length), size, mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

/** The command an argv names, as server/cli/index.ts's commandName finds it; "none" for help or a bare call. */
function commandOf(argv) {
  const valued = new Set(["--db", "--url", "--token", "--agent-id"]);
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i];
    if (valued.has(arg)) i++;
    else if (arg === "--") break;
    // Only names a command could have: anything else shares one cache (and never names a file).
    else if (!arg.startsWith("-")) return /^[a-z][a-z-]{0,39}$/.test(arg) ? arg : "other";
  }
  return "none";
}

/** A short hash of a string (FNV-1a, 32 bits): a file name, not a secret. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}
