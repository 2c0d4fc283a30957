// Bundles the `proofgate` command line into dist/cli.cjs so each call starts in plain Node without
// compiling TypeScript or resolving hundreds of package files: every pure-JS dependency is inlined
// (better-sqlite3 too, but its native addon stays in node_modules; next is loaded by `serve` alone). CommonJS,
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

/**
 * commander requires node:child_process at load, for executable subcommands this CLI does not
 * have; loading it pulls in net, dgram, streams and a dozen more internal modules (several ms of
 * every call). Its uses are property reads (childProcess.spawn), so a proxy that requires the real
 * module on the first read keeps the behaviour and drops the cost.
 */
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: "node:child_process", namespace: "lazy-builtin" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => ({
      loader: "js",
      contents: `let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require(${JSON.stringify(args.path)}))[key], has: (_, key) => key in (real ??= require(${JSON.stringify(args.path)})) });`,
    }));
  },
};

/**
 * better-sqlite3 finds its addon with the `bindings` package, which tries a dozen candidate paths,
 * each a failed require(). The addon is where npm put better-sqlite3: beside this bundle's
 * node_modules (dist/../node_modules/better-sqlite3/build/Release), or wherever node's resolution
 * finds the package (an install that hoisted it elsewhere).
 */
const nativeAddon = {
  name: "native-addon",
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, (args) =>
      /[\\/]node_modules[\\/]better-sqlite3[\\/]/.test(args.importer) ? { path: "bindings", namespace: "native-addon" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "native-addon" }, () => ({
      loader: "js",
      contents: `const path = require("node:path");
module.exports = function bindings(name) {
  try {
    return require(path.join(__dirname, "..", "node_modules", "better-sqlite3", "build", "Release", name));
  } catch (error) {
    if (error.code !== "MODULE_NOT_FOUND") throw error;
    return require(path.join(path.dirname(require.resolve("better-sqlite3/package.json")), "build", "Release", name));
  }
};`,
    }));
  },
};

/**
 * `proofgate mcp` is the only command that needs the MCP SDK (~600 KB): it gets a bundle of its
 * own, dist/mcp.cjs, required when that command runs, so the SDK is not read, nor its code cache
 * deserialised, on every other call (it cost them about 5 ms of CPU each inlined).
 */
const separateMcp = {
  name: "separate-mcp",
  setup(b) {
    b.onResolve({ filter: /^\.\/mcp-entry$/ }, (args) =>
      /[\\/]server[\\/]cli[\\/]commands[\\/]index\.ts$/.test(args.importer) ? { path: "mcp", namespace: "separate-mcp" } : undefined,
    );
    b.onResolve({ filter: /^\.\/mcp\.cjs$/ }, () => ({ path: "./mcp.cjs", external: true }));
    b.onLoad({ filter: /.*/, namespace: "separate-mcp" }, () => ({
      loader: "js",
      contents: `try {
  module.exports = require("./mcp.cjs");
} catch (error) {
  if (error.code !== "MODULE_NOT_FOUND" || !String(error.message).includes("mcp.cjs")) throw error;
  throw new Error("dist/mcp.cjs is missing (a build from before proofgate mcp existed): run npm run build:cli");
}`,
      resolveDir: "dist",
    }));
  },
};

/**
 * `import { sessions, tasks } from "@/db/schema"` names a barrel (db/schema/index.ts) that loads
 * every table module: in a bundle that builds all 40-odd Drizzle tables (and their relations) at
 * the first query, about 10 ms of a call that uses a handful. Each such import is pointed at the
 * modules that define its names instead, so a call builds the tables of the code it runs. Names
 * the schema files do not define as values (types) are left to the barrel, which a type-only
 * import never loads.
 */
const schemaByTable = {
  name: "schema-by-table",
  setup(b) {
    const folder = path.resolve("db", "schema");
    const owner = new Map();
    for (const file of fs.readdirSync(folder)) {
      if (!file.endsWith(".ts") || file === "index.ts" || file.endsWith(".test.ts")) continue;
      for (const [, name] of fs.readFileSync(path.join(folder, file), "utf8").matchAll(/^export (?:const|function|class|let) (\w+)/gm))
        owner.set(name, `@/db/schema/${file.slice(0, -3)}`);
    }
    const barrelImport = /import\s*\{([^}]*)\}\s*from\s*["']@\/db\/schema["'];?/g;
    b.onLoad({ filter: /[\\/](server|db|lib)[\\/].*\.ts$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = fs.readFileSync(args.path, "utf8");
      if (!source.includes("@/db/schema")) return undefined;
      const contents = source.replace(barrelImport, (_, list) => {
        const byModule = new Map();
        for (const raw of list.split(",")) {
          const spec = raw.trim();
          if (!spec || spec.startsWith("type ")) continue;
          const [name] = spec.split(/\s/, 1); // `x` or `x as y`: the imported name comes first
          const from = owner.get(name) ?? "@/db/schema";
          byModule.set(from, [...(byModule.get(from) ?? []), spec]);
        }
        return [...byModule].map(([from, specs]) => `import { ${specs.join(", ")} } from ${JSON.stringify(from)};`).join(" ");
      });
      return { contents, loader: "ts" };
    });
  },
};

/**
 * zod's `z.locales` (its error messages in 60-odd languages) is a third of the hook's bundle, read
 * and its modules evaluated on every call, and nothing here uses it: zod's own default, English, is
 * imported by zod directly. In the CLI's bundles `z.locales` keeps English and names every other
 * locale as a function that says it is not bundled.
 */
const englishZodOnly = {
  name: "english-zod-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: path.join(path.dirname(args.importer), "..", "locales", "index.js"), namespace: "english-zod-only" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "english-zod-only" }, (args) => {
      const names = [...fs.readFileSync(args.path, "utf8").matchAll(/export \{ default as (\w+) \}/g)].map((m) => m[1]);
      if (!names.includes("en")) throw new Error(`${args.path}: no English locale export; update english-zod-only in scripts/build-cli.mjs`);
      const others = names.filter((n) => n !== "en");
      return {
        loader: "js",
        resolveDir: path.dirname(args.path),
        contents: [
          'export { default as en } from "./en.js";',
          ...others.map((n) => `export function ${n}() { throw new Error("zod locale ${n} is not bundled in the proofgate CLI"); }`),
        ].join("\n"),
      };
    });
  },
};

/**
 * Drizzle's core imports two names from its PostgreSQL dialect: sql/sql.js the test `isPgEnum`,
 * relations.js the class `PrimaryKeyBuilder` (only to recognise it with `is()`). Either import
 * evaluates pg-core's table module and every PostgreSQL column type, ~45 modules, on every SQLite
 * call. Here both come from stand-ins that answer the same: `isPgEnum` tests the same registered
 * symbol, and `is()` matches classes by their entityKind string. A PostgreSQL ledger still loads the
 * real pg-core (drizzle-orm/node-postgres imports it), whose enums and keys carry the same marks.
 */
const drizzleWithoutPgCore = {
  name: "drizzle-without-pg-core",
  setup(b) {
    const standIns = [
      {
        importer: /[\\/]node_modules[\\/]drizzle-orm[\\/]sql[\\/]sql\.js$/,
        spec: "../pg-core/columns/enum.js",
        needs: ['import { isPgEnum } from "../pg-core/columns/enum.js";'],
        real: [
          'const isPgEnumSym = Symbol.for("drizzle:isPgEnum");',
          'return !!obj && typeof obj === "function" && isPgEnumSym in obj && obj[isPgEnumSym] === true;',
        ],
        contents:
          'const isPgEnumSym = Symbol.for("drizzle:isPgEnum");\nexport function isPgEnum(obj) {\n  return !!obj && typeof obj === "function" && isPgEnumSym in obj && obj[isPgEnumSym] === true;\n}\n',
      },
      {
        importer: /[\\/]node_modules[\\/]drizzle-orm[\\/]relations\.js$/,
        spec: "./pg-core/primary-keys.js",
        needs: ['import { PrimaryKeyBuilder } from "./pg-core/primary-keys.js";'],
        real: ['static [entityKind] = "PgPrimaryKeyBuilder";'],
        contents: 'import { entityKind } from "../entity.js";\nexport class PrimaryKeyBuilder {\n  static [entityKind] = "PgPrimaryKeyBuilder";\n}\n',
      },
    ];
    b.onResolve({ filter: /^\.\.?\/pg-core\// }, (args) => {
      const standIn = standIns.find((s) => s.spec === args.path && s.importer.test(args.importer));
      if (!standIn) return undefined;
      const importer = fs.readFileSync(args.importer, "utf8");
      const real = fs.readFileSync(path.join(path.dirname(args.importer), standIn.spec), "utf8");
      const lines = importer.split("\n").filter((line) => line.includes(`"${standIn.spec}"`));
      if (lines.join("\n") !== standIn.needs.join("\n") || !standIn.real.every((text) => real.includes(text)))
        throw new Error(`${args.importer}: drizzle's use of ${standIn.spec} changed; update drizzle-without-pg-core in scripts/build-cli.mjs`);
      return { path: path.join(path.dirname(args.importer), standIn.spec), namespace: "drizzle-without-pg-core", pluginData: standIn };
    });
    b.onLoad({ filter: /.*/, namespace: "drizzle-without-pg-core" }, (args) => ({
      loader: "js",
      resolveDir: path.dirname(args.path),
      contents: args.pluginData.contents,
    }));
  },
};

/**
 * `proofgate serve` loads the server (tRPC's HTTP handlers, better-auth, the Node bridge) from a
 * bundle of its own, dist/server.cjs, so no other command reads it.
 */
const separateServer = {
  name: "separate-server",
  setup(b) {
    b.onResolve({ filter: /^\.\/serve-entry$/ }, (args) =>
      /[\\/]server[\\/]cli[\\/]operator\.ts$/.test(args.importer) ? { path: "serve", namespace: "separate-server" } : undefined,
    );
    b.onResolve({ filter: /^\.\/server\.cjs$/ }, () => ({ path: "./server.cjs", external: true }));
    b.onLoad({ filter: /.*/, namespace: "separate-server" }, () => ({
      loader: "js",
      contents: `try {
  module.exports = require("./server.cjs");
} catch (error) {
  if (error.code !== "MODULE_NOT_FOUND" || !String(error.message).includes("server.cjs")) throw error;
  throw new Error("dist/server.cjs is missing (a build from before it existed): run npm run build:cli");
}`,
      resolveDir: "dist",
    }));
  },
};

/** What both bundles share: CommonJS for Node 20, every pure-JS dependency inlined. */
const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  // better-sqlite3's JavaScript is inlined too (its native addon is loaded from node_modules: see
  // nativeAddon above); next is loaded by `serve` alone.
  external: ["next", "better-sqlite3/package.json"],
  // Modules locate files beside themselves (migrations, the built dashboard): dist/cli.cjs.
  // Computed when first read (finding the migrations, a remote call's https): building a file URL on
  // every start cost about 1% of a call.
  define: { "import.meta.url": "__pgImportMeta.url" },
  banner: { js: 'const __pgImportMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };' },
  tsconfig: "tsconfig.json",
  // No comments or indentation: a smaller, ASCII-only file is read and decoded faster on every call.
  minifyWhitespace: true,
  sourcemap: "linked",
  logLevel: "warning",
};

/**
 * The bundles bin/proofgate.cjs runs (dist/cli.cjs, dist/hook.cjs) are written already wrapped as
 * the function it calls, so the executable compiles the file's text as it was read. Wrapping it at
 * run time (a template string around 1.7 MB) made V8 copy the whole source into a new string before
 * compiling: about 415 fresh memory pages on every call, and a first touch of a page costs 5-20 µs on
 * the microVMs this runs on (see docs/performance.md). The same parameters Node gives a module.
 */
export const RUN_WRAPPER = { head: "(function (exports, require, module, __filename, __dirname) {", tail: "\n})" };
/**
 * Those two bundles also have their local names shortened (1.7 → 1.2 MB for dist/cli.cjs, and a
 * smaller code cache): every call reads the text and keeps a copy of it, ~330 fewer pages touched.
 * Classes lose their names with them (a DomainError's `name` comes from `new.target.name`), and
 * nothing here compares or prints those: errors are told apart by `instanceof`, codes and rules, and
 * the names tRPC compares (TRPCError, TRPCClientError) are set as strings. Stack traces map back
 * through the source map. dist/server.cjs and dist/mcp.cjs keep their names.
 */
const wrapped = (banner) => ({ banner: { js: `${RUN_WRAPPER.head}${banner.js}` }, footer: { js: RUN_WRAPPER.tail }, minifyIdentifiers: true });

/*
 * `proofgate hook` (Claude Code runs it on every tool call) has a bundle of its own too,
 * dist/hook.cjs (0.9 MB: zod is most of it), which bin/proofgate.mjs runs for that command alone, so a
 * hook call reads and deserialises a cache of only what a hook needs. CPU (task-clock, `perf stat`)
 * and wall (under `chrt -f 50`) of a Stop held on a linked session, medians of 20 interleaved runs
 * each, load average 12-15 on the 2-core machine:
 *                                       wall median   CPU
 *   `node -e 0`                         73 ms         58 ms
 *   hook from dist/cli.cjs              134-135 ms    117-120 ms
 *   hook from dist/hook.cjs             127-134 ms    112 ms
 * (PostToolUse: 116-120 → 109-115 ms CPU.) Of the rest, from a CPU profile: ~8 ms compiling the
 * script from its cache, ~13 evaluating zod's and drizzle's schemas, ~7 opening SQLite, ~7 the hook.
 */
/** dist/hook.cjs's esbuild options (hook-bundle.test.ts builds it with a metafile to check what a hook call loads). */
export function hookBuildOptions() {
  return {
    ...common,
    entryPoints: ["server/cli/hook-entry.ts"],
    outfile: "dist/hook.cjs",
    ...wrapped(common.banner),
    plugins: [lazyBuiltins, nativeAddon, schemaByTable, englishZodOnly, drizzleWithoutPgCore],
  };
}

export async function buildCli() {
  await build({
    ...common,
    entryPoints: ["server/cli/entry.ts"],
    outfile: "dist/cli.cjs",
    ...wrapped(common.banner),
    plugins: [lazyBuiltins, nativeAddon, separateMcp, separateServer, schemaByTable, englishZodOnly, drizzleWithoutPgCore],
  });
  // Loaded by require() (not from the code cache), so its dynamic imports keep their loader.
  // better-sqlite3 stays external here: Next's server loads it from node_modules, so the two share
  // one copy. The addon throws the SqliteError class of the first copy that opened a database (in
  // `serve`, dist/cli.cjs's inlined one), so db/client.ts tells SQLite's errors by their code
  // (sqliteCodeOf), never by `instanceof`.
  await build({ ...common, external: [...common.external, "better-sqlite3"], entryPoints: ["server/cli/serve-entry.ts"], outfile: "dist/server.cjs" });
  await build({ ...common, entryPoints: ["server/cli/commands/mcp-entry.ts"], outfile: "dist/mcp.cjs", plugins: [lazyBuiltins, nativeAddon, schemaByTable] });
  await build(hookBuildOptions());
  // bin/proofgate.mjs runs the bundle from V8's code cache, where Node 20 loses import()'s loader:
  // every dynamic import must have been bundled (esbuild turns those into lazy initialisers).
  for (const file of ["cli.cjs", "mcp.cjs", "hook.cjs"]) {
    const text = fs.readFileSync(path.join("dist", file), "utf8");
    // bin/proofgate.cjs reads the bundle as latin1 (a copy, no decoding): esbuild escapes non-ASCII (charset "ascii").
    if (/[^\x00-\x7f]/.test(text)) throw new Error(`dist/${file}: not ASCII; bin/proofgate.cjs reads it as latin1`);
    const native = text.match(/\bimport\(\s*["'`][^"'`]+["'`]\s*\)/g);
    if (native) throw new Error(`dist/${file}: ${native.join(", ")} would fail from the code cache; require() the package instead`);
  }
  // bin/proofgate.cjs recognises a wrapped bundle by the same text (it cannot import this script: every call would pay for it).
  if (!fs.readFileSync(path.join("bin", "proofgate.cjs"), "utf8").includes(JSON.stringify(RUN_WRAPPER.head)))
    throw new Error("bin/proofgate.cjs: does not test for RUN_WRAPPER.head; keep the two in step");
  for (const file of ["cli.cjs", "hook.cjs"])
    if (!fs.readFileSync(path.join("dist", file), "latin1").startsWith(RUN_WRAPPER.head)) throw new Error(`dist/${file}: not wrapped for bin/proofgate.cjs`);
  // What an older checkout (and `node dist/cli.mjs`) ran: now the executable, which loads the bundle.
  fs.writeFileSync(path.join("dist", "cli.mjs"), 'import "../bin/proofgate.mjs";\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildCli();
  console.log("built dist/cli.cjs");
}
