// Bundles the `proofgate` command line into dist/cli.cjs so each call starts in plain Node without
// compiling TypeScript or resolving hundreds of package files: every pure-JS dependency is inlined
// (better-sqlite3 is native and stays in node_modules; next is loaded by `serve` alone). CommonJS,
// so bin/proofgate.mjs can run it from V8's code cache (Node 20 has no module compile cache), and
// modules a call does not need (the other mode's stack, the routers it does not call, the demo
// generator, password hashing, next) are behind dynamic imports that esbuild turns into lazy
// initialisers: compiled from the cache, never evaluated.
//
// Start-up of one local-mode call as a whole process,
// `proofgate --db F update-success-criterion s1 A --status met --evidence x`, on the 2-core machine
// this was built on, shared with other jobs (load average 12-20). Wall: median of 21 runs timed with
// date +%s%N, each under `chrt -f 50` so the other jobs do not queue it. CPU: mean task-clock of
// `perf stat -r 5`, median of 7 interleaved rounds.
//                                          wall median   CPU
//   before: ESM, packages external         618-647 ms    757 ms
//   this build, from the code cache        246-251 ms    255 ms
//   `node -e 0`                            100-131 ms    120 ms
// Of the 250 ms: ~115 Node's own start until bin/proofgate.mjs runs, ~17 reading the bundle and its
// cache and deserialising it, ~85 the command (zod and drizzle building their schemas, 42 tables;
// opening SQLite, the update). Remote `get-session`: 870 → 287 ms CPU, chiefly by not using fetch
// (Node compiles its undici on first use; see server/cli/http.ts).
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export async function buildCli() {
  await build({
    entryPoints: ["server/cli/entry.ts"],
    outfile: "dist/cli.cjs",
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["better-sqlite3", "next"],
    // Modules locate files beside themselves (migrations, the built dashboard): dist/cli.cjs.
    define: { "import.meta.url": "__pgImportMetaUrl" },
    banner: { js: 'const __pgImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    tsconfig: "tsconfig.json",
    // No comments or indentation: a smaller, ASCII-only file is read and decoded faster on every call.
    minifyWhitespace: true,
    sourcemap: "linked",
    logLevel: "warning",
  });
  // bin/proofgate.mjs runs the bundle from V8's code cache, where Node 20 loses import()'s loader:
  // every dynamic import must have been bundled (esbuild turns those into lazy initialisers).
  const native = fs.readFileSync(path.join("dist", "cli.cjs"), "utf8").match(/\bimport\(\s*["'`][^"'`]+["'`]\s*\)/g);
  if (native) throw new Error(`dist/cli.cjs: ${native.join(", ")} would fail from the code cache; require() the package instead`);
  // What an older checkout (and `node dist/cli.mjs`) ran: now the executable, which loads the bundle.
  fs.writeFileSync(path.join("dist", "cli.mjs"), 'import "../bin/proofgate.mjs";\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildCli();
  console.log("built dist/cli.cjs");
}
