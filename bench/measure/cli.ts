/**
 * The command line's whole-process time for one BAZINGA-compatible command as users run it (the
 * installed `proofgate`, local and remote mode, beside `node -e 0`). The server's memory is
 * measured in server-memory.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { type BenchContext, callerOn } from "../lib/context";
import { ROOT, ledgerFlags, run } from "../lib/proc";
import { summarize } from "../lib/stats";

const OPERATOR = { principalId: "operator", principalKind: "operator", role: "admin", label: "project_manager" } as const;

/**
 * The CLI as users run it (issue 19's row): the `proofgate` command the README's install puts on
 * the PATH (`npm link` from the checkout, here into a temporary npm prefix so nothing outside the
 * run's folder changes), found on the PATH and run as a whole process, spawn → exit, with
 * `update-success-criterion` in local mode (--db, or --database-url on PostgreSQL) and in remote mode (--url/--token against the
 * production server), interleaved with `node -e 0` in the same loop. Beside them, as a labelled
 * diagnostic, the checkout's older path `node bin/proofgate.mjs`.
 */
export async function measureCli(ctx: BenchContext): Promise<void> {
  const sessionId = `bench_cli_${Date.now()}`;
  const admin = callerOn(ctx.local, OPERATOR);
  await admin.session.create({ id: sessionId, requirements: "Bench: CLI", mode: "simple" });
  await admin.criteria.save({ sessionId, criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }] });

  const installed = await installCommand(ctx);
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: installed.path, NEXT_TELEMETRY_DISABLED: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("PROOFGATE_")) delete env[key];
  const update = (i: number) => [
    "--agent-id",
    "project_manager",
    "--quiet",
    "update-success-criterion",
    sessionId,
    "All tests passing",
    "--status",
    i % 2 ? "met" : "pending",
    "--actual",
    `${100 + i}/142 passing`,
    "--evidence",
    `artifacts/run-${i}.txt`,
  ];
  const checked = async (label: string, command: string, args: string[]): Promise<number> => {
    const result = await run(command, args, { env });
    if (result.code !== 0) throw new Error(`${label} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
    return result.ms;
  };
  const times = { node: [] as number[], local: [] as number[], remote: [] as number[], mjs: [] as number[] };
  const reps = ctx.reps(40, 6);
  for (let i = 0; i <= reps; i++) {
    const node = await checked("node -e 0", process.execPath, ["-e", "0"]);
    // `proofgate`, found on the PATH as a shell (or Claude Code, or an orchestrator's script) finds it.
    const local = await checked("proofgate (local)", "proofgate", [...update(i), ...ledgerFlags(ctx.db)]);
    const remote = await checked("proofgate (remote)", "proofgate", ["--url", ctx.server.url, "--token", ctx.tokens.orchestrator, ...update(i)]);
    const mjs = await checked("node bin/proofgate.mjs", process.execPath, [path.join(ROOT, "bin", "proofgate.mjs"), ...update(i), ...ledgerFlags(ctx.db)]);
    // The first call of each may write V8's code cache for the command.
    if (i === 0) continue;
    times.node.push(node);
    times.local.push(local);
    times.remote.push(remote);
    times.mjs.push(mjs);
  }
  const baseline = summarize(times.node);
  const local = summarize(times.local);
  const ratio = local.median / baseline.median;
  const how = `spawn → exit of \`proofgate\` found on the PATH (${installed.how}), interleaved with \`node -e 0\` (median ${baseline.median.toFixed(1)} ms in this run)`;
  ctx.rec.add({
    id: "cli.node_baseline",
    measurement: "node -e 0 (baseline for the CLI)",
    unit: "ms",
    summary: baseline,
    target: null,
    notes: ["the same run, interleaved with the CLI calls below"],
  });
  ctx.rec.add({
    id: "cli.update_success_criterion",
    measurement: "CLI update-success-criterion, local mode, installed command, whole process",
    unit: "ms",
    summary: local,
    target: { stat: "median", op: "<=", value: 100 },
    targetText: "median ≤ 100 ms and ≤ 1.5 × `node -e 0` in the same run",
    met: local.median <= 100 && ratio <= 1.5,
    notes: [how, `${ratio.toFixed(2)} × node -e 0 (median / median)`],
    extra: { nodeMedianMs: baseline.median, ratioToNode: ratio },
  });
  ctx.rec.add({
    id: "cli.update_success_criterion.remote",
    measurement: "CLI update-success-criterion, remote mode, installed command, whole process",
    unit: "ms",
    summary: summarize(times.remote),
    target: { stat: "median", op: "<=", value: 120 },
    targetText: "median ≤ 120 ms",
    notes: [
      `${how}; --url the production server, --token an orchestrator's API token`,
      `${(summarize(times.remote).median / baseline.median).toFixed(2)} × node -e 0`,
    ],
  });
  ctx.rec.add({
    id: "cli.update_success_criterion.bin_mjs",
    measurement: "Diagnostic: CLI update-success-criterion, local mode, `node bin/proofgate.mjs` (the checkout's older path)",
    unit: "ms",
    summary: summarize(times.mjs),
    target: null,
    notes: [
      "the older path: a symlink to the installed command's bin/proofgate.cjs since session 10 (earlier runs measured it as an ES module entry, which started Node's ESM loader first); kept for comparison with those runs",
    ],
  });
}

/**
 * `npm link` from the checkout, as the README's install says, with npm's global prefix set to a
 * folder of this run (NPM_CONFIG_PREFIX): the same two symlinks (prefix/lib/node_modules/proofgate
 * → the checkout, prefix/bin/proofgate → its bin) without touching the machine's global prefix.
 * Returns the PATH that finds that `proofgate` first, and the same node as this process.
 */
async function installCommand(ctx: BenchContext): Promise<{ path: string; how: string }> {
  const prefix = path.join(ctx.dir, "npm-prefix");
  fs.mkdirSync(prefix, { recursive: true });
  const link = await run("npm", ["link", "--offline", "--no-audit", "--no-fund"], { env: { ...process.env, NPM_CONFIG_PREFIX: prefix } });
  if (link.code !== 0) throw new Error(`npm link failed: ${link.stderr.trim() || link.stdout.trim()}`);
  const bin = path.join(prefix, "bin", "proofgate");
  if (!fs.existsSync(bin)) throw new Error(`npm link left no ${bin}`);
  return {
    path: [path.join(prefix, "bin"), path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
    how: `installed by \`npm link\` into a temporary prefix: ${path.relative(prefix, bin)} → ${fs.readlinkSync(bin)}`,
  };
}
