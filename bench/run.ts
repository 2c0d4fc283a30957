/**
 * `npm run bench [-- --quick]`: issue 6's benchmark suite. Builds the app, generates the datasets
 * with the demo generator, starts the production server on its own port and database, runs every
 * measurement (medians and p95s over repeated runs; ratios to the engine measured in the same run),
 * prints one table and writes bench/results.json (test-results/bench-quick.json for --quick).
 *
 * Flags: --quick (small dataset, fewer repetitions, under 3 minutes), --sessions N (the large
 * dataset's size, default 10000), --port P (default 3400; P+1 is used too), --skip-build,
 * --only a,b (measurement groups: api, analytics, browser, live, writes, cli, runtime, memory, import,
 * redaction),
 * --keep (keep the temporary folder), --db FILE (measure an existing generated database instead),
 * --profile (the measured server runs with --cpu-prof; prints where its CPU time went),
 * --out FILE (where to write the results; with --only, nothing is written unless given),
 * --bazinga-sessions N (the import group's synthesized BAZINGA file: N sessions of ~100 log rows
 * each; default 10000, i.e. about a million log rows; 30 with --quick). `--only import` runs that
 * group alone: no datasets, no server; so does `--only redaction` (in-process, nothing to build).
 * --workers N (the server's PROOFGATE_WORKERS; default: what `npm start` uses),
 * --api-via-next (the API through Next's router as well: only to measure what the direct path saves),
 * --engine sqlite|postgres (default sqlite): postgres copies the same generated dataset into a fresh
 * database of a throwaway cluster (lib/postgres.ts; `proofgate copy`, timed), serves it with
 * `proofgate serve --database-url` and runs the same measurements; the SQLite-only groups (the
 * dataset generation, the import, the file-cache warming) are skipped with the reason printed.
 * Results: bench/results-postgres.json (test-results/bench-quick-postgres.json for --quick).
 * --pg-setting name=value (repeatable; with --engine postgres): a cluster setting over the bench's
 * (lib/postgres.ts), e.g. synchronous_commit=off, SQLite's durability under the server's settings.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeLedger, openLedger } from "@/db/client";
import type { BenchContext, Tokens } from "./lib/context";
import { type Engine, type EngineName, sqliteEngine } from "./lib/engine";
import { startPostgresEngine } from "./lib/postgres";
import { ROOT, proofgate, run, serverLogs, startServer } from "./lib/proc";
import { summarizeProfiles } from "./lib/profile";
import { Recorder } from "./lib/results";
import { summarize } from "./lib/stats";
import { measureAnalyticsColdAndStall } from "./measure/analytics";
import { measureApi } from "./measure/api";
import { measureBazingaImport } from "./measure/bazinga";
import { launch, measureLive, measureNavigation } from "./measure/browser";
import { measureCli } from "./measure/cli";
import { measureServerMemory } from "./measure/server-memory";
import { countsLine, generate, measureLargeGeneration, measureSmallGeneration } from "./measure/generate";
import { measureRedaction } from "./measure/redaction";
import { measureHookCommand, measureHookHttp, measureMcp } from "./measure/runtime";
import { measureIngest, measureTaskMoves } from "./measure/writes";

interface Args {
  quick: boolean;
  sessions: number;
  port: number;
  skipBuild: boolean;
  only: Set<string> | null;
  keep: boolean;
  db: string | null;
  profile: boolean;
  out: string | null;
  bazingaSessions: number | null;
  workers: number | undefined;
  apiViaNext: boolean;
  engine: EngineName;
  pgSettings: Record<string, string>;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    quick: false,
    sessions: 10_000,
    port: 3400,
    skipBuild: false,
    only: null,
    keep: false,
    db: null,
    profile: false,
    out: null,
    bazingaSessions: null,
    workers: undefined,
    apiViaNext: false,
    engine: "sqlite",
    pgSettings: {},
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a}: needs a value`);
      return v;
    };
    if (a === "--quick") args.quick = true;
    else if (a === "--skip-build") args.skipBuild = true;
    else if (a === "--keep") args.keep = true;
    else if (a === "--profile") args.profile = true;
    else if (a === "--api-via-next") args.apiViaNext = true;
    else if (a === "--workers") args.workers = positive(a, value());
    else if (a === "--out") args.out = path.resolve(value());
    else if (a === "--sessions") args.sessions = positive(a, value());
    else if (a === "--port") args.port = positive(a, value());
    else if (a === "--bazinga-sessions") args.bazingaSessions = positive(a, value());
    else if (a === "--only") args.only = new Set(value().split(","));
    else if (a === "--db") args.db = path.resolve(value());
    else if (a === "--engine") args.engine = engineName(value());
    else if (a === "--pg-setting") {
      const [name, setting] = value().split("=", 2);
      if (!name || !/^[a-z_]+$/.test(name) || !setting) throw new Error(`--pg-setting: name=value (got "${argv[i]}")`);
      args.pgSettings[name] = setting;
    } else throw new Error(`unknown argument ${a} (see the header of bench/run.ts)`);
  }
  return args;
}

function engineName(v: string): EngineName {
  if (v !== "sqlite" && v !== "postgres") throw new Error(`--engine: sqlite or postgres (got "${v}")`);
  return v;
}

/** Groups that measure SQLite itself, skipped under --engine postgres, and why. */
const SQLITE_ONLY: Record<string, string> = {
  generate: "the demo generator writes a SQLite file: on PostgreSQL that file is copied in instead (the copy is timed)",
  import: "the BAZINGA import is measured into fresh SQLite files (measure/bazinga.ts), not into the served ledger",
};

function positive(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: must be a positive integer (got "${v}")`);
  return n;
}

async function tokensFor(ledger: string): Promise<Tokens> {
  const make = async (role: keyof Tokens) => {
    const out = await proofgate(ledger, ["--json", "token", "create", "--name", `bench-${role}`, "--role", role]);
    return (JSON.parse(out.stdout) as { token: string }).token;
  };
  return {
    lead: await make("lead"),
    viewer: await make("viewer"),
    agent: await make("agent"),
    verifier: await make("verifier"),
    orchestrator: await make("orchestrator"),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const rec = new Recorder(args.quick);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-bench-"));
  const wants = (group: string) => !args.only || args.only.has(group);
  const pg = args.engine === "postgres";
  console.log(`Proofgate bench (${args.quick ? "quick" : "full"}${pg ? ", PostgreSQL" : ""}) in ${dir}`);
  const started = Date.now();
  rec.datasets.engine = args.engine;
  if (pg) {
    rec.datasets.skipped = SQLITE_ONLY;
    for (const [group, why] of Object.entries(SQLITE_ONLY)) console.log(`  ${group}: skipped on PostgreSQL (${why})`);
  }
  if (args.only?.size === 1 && args.only.has("redaction")) return redactionOnly(args, rec, dir, started);
  if (args.only?.size === 1 && args.only.has("import")) {
    if (!pg) return importOnly(args, rec, dir, started);
    console.log("nothing to measure: --only import on PostgreSQL");
    return;
  }

  // 1. Build (the quick run reuses an existing build, as npm start does).
  const built = fs.existsSync(path.join(ROOT, ".next", "BUILD_ID")) && fs.existsSync(path.join(ROOT, "dist", "cli.mjs"));
  if (!args.skipBuild && (!args.quick || !built)) {
    console.log("• npm run build");
    const build = await run("npm", ["run", "build"], { env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout.slice(-3000)}\n${build.stderr.slice(-3000)}`);
    rec.datasets.buildMs = Math.round(build.ms);
    console.log(`  built in ${(build.ms / 1000).toFixed(1)} s`);
  }

  // 2. Datasets.
  console.log("• datasets");
  const db = await datasetFor(args, rec, dir);
  rec.datasets.measured = args.quick ? "small (quick run)" : args.db ? args.db : "large";
  const engine = pg ? await postgresFrom(db, rec, args.pgSettings) : sqliteEngine(db, dir);
  const ledger = engine.ledger;

  // 3. People and tokens, then the production server.
  const person = { email: "bench-lead@proofgate.test", password: "bench-password-123" };
  await proofgate(ledger, ["--quiet", "user", "create", "--email", person.email, "--password", person.password, "--role", "lead"]).catch((error: unknown) => {
    if (!String(error).includes("exists")) throw error;
  });
  const tokens = await tokensFor(ledger);
  const local = await openLedger(ledger);
  console.log(`• server on port ${args.port}`);
  const profileDir = args.profile ? path.join(dir, "profiles") : undefined;
  const serverOptions = { workers: args.workers, apiViaNext: args.apiViaNext, env: engine.serverEnv, logDir: dir };
  const server = await startServer(ledger, args.port, { ...serverOptions, profileDir });
  rec.datasets.server = `proofgate serve${pg ? " --database-url (PostgreSQL)" : ""}, ${server.workers} serving process${server.workers === 1 ? "" : "es"}, API ${args.apiViaNext ? "through Next's router (--api-via-next)" : "answered directly (tRPC's Node bridge), pages by Next"}`;
  const ctx: BenchContext = {
    quick: args.quick,
    rec,
    dir,
    db: ledger,
    engine,
    local,
    server,
    serverOptions,
    basePort: args.port,
    tokens,
    person,
    reps: (full, quick) => (args.quick ? quick : full),
  };

  // Groups that start on a warm file cache (lib/file-cache.ts says why); the analytics group then
  // empties it for its cold-cache figures. The import measures its own, fresh files.
  const WARM = new Set(["api", "analytics", "browser", "live", "writes", "cli", "runtime", "memory"]);
  rec.datasets.fileCache = engine.warmCache
    ? "each group starts with the measured database's files read once into the file cache (this host pages out file cache left unread for a minute); the cold-cache figures empty it first"
    : `no file-cache warming: ${engine.warmSkipped}; the cold-cache figures empty every cache first`;
  if (!engine.warmCache) console.log(`  file-cache warming: skipped on PostgreSQL (${engine.warmSkipped})`);
  const loadByStep: Record<string, number[]> = {};
  rec.datasets.loadAverageByStep = loadByStep;
  const step = async (group: string, title: string, fn: () => Promise<void>) => {
    if (!wants(group)) return;
    if (pg && group in SQLITE_ONLY) return console.log(`• ${title}: skipped on PostgreSQL (${SQLITE_ONLY[group]})`);
    const warmed = WARM.has(group) && engine.warmCache ? ` (file cache warmed in ${(engine.warmCache() / 1000).toFixed(1)} s)` : "";
    console.log(`• ${title}${warmed}`);
    const t0 = Date.now();
    const logs = serverLogs(dir);
    const loadBefore = os.loadavg()[0]!;
    try {
      await fn();
    } catch (error) {
      rec.fail(group, error, logs.since());
    }
    // This host is shared: each step's load average (1 min) before and after, beside its figures.
    const load = [loadBefore, os.loadavg()[0]!].map((l) => Math.round(l * 10) / 10);
    loadByStep[title] = load;
    console.log(`  (${((Date.now() - t0) / 1000).toFixed(1)} s, load average ${load.join(" → ")})`);
  };
  try {
    await step("api", "API server time (in-process caller and HTTP)", () => measureApi(ctx));
    await step("analytics", "analytics: cold file cache, stall", () => measureAnalyticsColdAndStall(ctx));
    if (wants("browser") || wants("live")) {
      const browser = await launch();
      try {
        await step("browser", "Chromium: navigation → data visible", () => measureNavigation(ctx, browser));
        await step("live", "live: CLI write → SSE client / browser DOM", () => measureLive(ctx, browser));
      } finally {
        await browser.close();
      }
    }
    await step("writes", "task moves over HTTP", () => measureTaskMoves(ctx));
    await step("writes", "batch ingest over HTTP", () => measureIngest(ctx));
    await step("cli", "CLI whole process", () => measureCli(ctx));
    await step("runtime", "Claude Code hook command, whole process", () => measureHookCommand(ctx));
    await step("runtime", "Claude Code HTTP hook: handler and round trip", () => measureHookHttp(ctx));
    await step("runtime", "MCP tool calls over stdio and Streamable HTTP", () => measureMcp(ctx));
  } finally {
    await server.stop();
  }
  if (profileDir) {
    const profile = summarizeProfiles(profileDir);
    rec.datasets.serverProfile = profile;
    if (profile) {
      console.log(`• server CPU profile (${profile.totalMs} ms on CPU, idle excluded)`);
      for (const a of profile.byArea) console.log(`  ${a.share.toFixed(1).padStart(5)}%  ${a.area}`);
      for (const f of profile.topFunctions.slice(0, 15)) console.log(`  ${f.share.toFixed(1).padStart(5)}%  ${f.fn} (${f.where})`);
    }
  }
  await step("memory", "server RSS: 50 live clients, mixed traffic", () => measureServerMemory(ctx));
  await step("import", "BAZINGA import", () => measureBazingaImport(ctx, args.bazingaSessions ?? undefined));
  await step("redaction", "redaction of hostile input, in-process", async () => measureRedaction(ctx));
  await closeLedger(local);
  engine.close();

  rec.datasets.totalSeconds = Math.round((Date.now() - started) / 1000);
  // A quick run's figures are not the committed ones: they go where test output goes (git-ignored).
  const suffix = pg ? "-postgres" : "";
  const out = args.out ?? (args.quick ? path.join(ROOT, "test-results", `bench-quick${suffix}.json`) : path.join(ROOT, "bench", `results${suffix}.json`));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const write = !args.only || args.out !== null;
  if (write) rec.write(out);
  rec.print();
  console.log(`\n${write ? `results: ${path.relative(ROOT, out)}` : "(--only without --out: results not written)"}; ${rec.datasets.totalSeconds} s in all`);
  if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

/** --engine postgres: the cluster, the dataset copied in (its time a row of the results), its settings. */
async function postgresFrom(db: string, rec: Recorder, overrides: Record<string, string>): Promise<Engine> {
  console.log("• PostgreSQL: a throwaway cluster, the dataset copied in with proofgate copy");
  const postgres = await startPostgresEngine(db, overrides);
  const { copy, settings } = postgres;
  const databaseMb = Math.round(postgres.databaseBytes / 2 ** 20);
  rec.datasets.postgres = { settings, databaseMb, copy };
  console.log(
    `  ${Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ")}; database ${databaseMb} MB`,
  );
  rec.add({
    id: "postgres.copy",
    measurement: "proofgate copy: the dataset, SQLite file → empty PostgreSQL database (whole process)",
    unit: "ms",
    summary: summarize([copy.ms]),
    target: null,
    notes: [
      `${copy.rows.toLocaleString("en-US")} rows in ${copy.tables} tables, verified ${copy.verified ? "yes" : "NO"} (row counts and content hashes, before the commit); the copy's own time ${copy.copyMs.toLocaleString("en-US")} ms`,
      `slowest tables: ${copy.slowestTables.map((t) => `${t.table} ${t.rows.toLocaleString("en-US")} rows ${(t.milliseconds / 1000).toFixed(1)} s`).join(", ")}`,
    ],
  });
  return postgres;
}

/**
 * The measured dataset. On SQLite its generation is measured (the small one 2–3 times, the large one
 * once); on PostgreSQL it is generated the same way, untimed, to be copied in.
 */
async function datasetFor(args: Args, rec: Recorder, dir: string): Promise<string> {
  if (args.engine === "sqlite") {
    const small = await measureSmallGeneration(rec, dir, args.quick ? 2 : 3);
    if (args.db) return args.db;
    if (args.quick) return small;
    const large = path.join(dir, "large.db");
    console.log(`  generating ${args.sessions} sessions…`);
    await measureLargeGeneration({ rec }, large, args.sessions);
    return large;
  }
  if (args.db) return args.db;
  const [name, sessions] = args.quick ? (["small", 50] as const) : (["large", args.sessions] as const);
  const file = path.join(dir, `${name}.db`);
  console.log(`  generating ${sessions} sessions (untimed on PostgreSQL)…`);
  const { summary } = await generate(file, sessions, 1);
  rec.datasets[name] = { sessions, seed: 1, rows: summary.rows, generatorMs: summary.milliseconds };
  console.log(`  ${name} dataset: ${countsLine(summary.rows, sessions)}`);
  return file;
}

/** `--only import`: the import group needs neither the generated datasets nor the server, only the built CLI. */
async function importOnly(args: Args, rec: Recorder, dir: string, started: number): Promise<void> {
  if (!args.skipBuild) {
    console.log("• npm run build:cli");
    const build = await run("npm", ["run", "build:cli"]);
    if (build.code !== 0) throw new Error(`npm run build:cli failed:\n${build.stdout.slice(-3000)}\n${build.stderr.slice(-3000)}`);
  }
  console.log("• BAZINGA import");
  try {
    await measureBazingaImport({ quick: args.quick, rec, dir }, args.bazingaSessions ?? undefined);
  } catch (error) {
    rec.fail("import", error);
  }
  rec.datasets.totalSeconds = Math.round((Date.now() - started) / 1000);
  if (args.out) rec.write(args.out);
  rec.print();
  console.log(
    `\n${args.out ? `results: ${path.relative(ROOT, args.out)}` : "(--only without --out: results not written)"}; ${rec.datasets.totalSeconds} s in all`,
  );
  if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

/** `--only redaction`: an in-process measurement, on either engine (it touches no database). */
function redactionOnly(args: Args, rec: Recorder, dir: string, started: number): void {
  fs.rmSync(dir, { recursive: true, force: true });
  console.log("• redaction of hostile input, in-process");
  try {
    measureRedaction({ quick: args.quick, rec });
  } catch (error) {
    rec.fail("redaction", error);
  }
  rec.datasets.totalSeconds = Math.round((Date.now() - started) / 1000);
  if (args.out) rec.write(args.out);
  rec.print();
  console.log(
    `\n${args.out ? `results: ${path.relative(ROOT, args.out)}` : "(--only without --out: results not written)"}; ${rec.datasets.totalSeconds} s in all`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
