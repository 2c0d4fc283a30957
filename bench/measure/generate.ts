/** Generating the datasets with the demo generator (`proofgate demo`), timed as whole processes. */
import path from "node:path";
import type { BenchContext } from "../lib/context";
import { proofgate } from "../lib/proc";
import type { Recorder } from "../lib/results";
import { summarize } from "../lib/stats";

export interface DemoSummary {
  sessions: number;
  seed: number;
  milliseconds: number;
  rows: Record<string, number>;
}

/** What issue 6 describes as the large dataset, per 10,000 sessions. */
export const LARGE_EXPECTED: Record<string, number> = {
  sessions: 10_000,
  tasks: 100_000,
  task_transitions: 400_000,
  success_criteria: 50_000,
  orchestration_logs: 1_000_000,
  tool_calls: 200_000,
};

export async function generate(db: string, sessions: number, seed: number): Promise<{ summary: DemoSummary; processMs: number }> {
  const run = await proofgate(db, ["--json", "demo", "--sessions", String(sessions), "--seed", String(seed)]);
  return { summary: JSON.parse(run.stdout) as DemoSummary, processMs: run.ms };
}

export function countsLine(rows: Record<string, number>, sessions: number): string {
  const scale = sessions / 10_000;
  return Object.entries(LARGE_EXPECTED)
    .map(([table, expected]) => {
      const actual = rows[table] ?? 0;
      const want = Math.round(expected * scale);
      const diff = want ? ((actual - want) / want) * 100 : 0;
      return `${table} ${actual.toLocaleString("en-US")} (issue: ${want.toLocaleString("en-US")}, ${diff >= 0 ? "+" : ""}${diff.toFixed(0)}%)`;
    })
    .join(", ");
}

/** The small dataset, generated `reps` times into fresh files; returns the last file. */
export async function measureSmallGeneration(rec: Recorder, dir: string, reps: number): Promise<string> {
  const times: number[] = [];
  const generatorMs: number[] = [];
  let file = "";
  let rows: Record<string, number> = {};
  for (let r = 0; r < reps; r++) {
    file = path.join(dir, `small-${r}.db`);
    const { summary, processMs } = await generate(file, 50, 1);
    times.push(processMs);
    generatorMs.push(summary.milliseconds);
    rows = summary.rows;
  }
  rec.datasets.small = { sessions: 50, seed: 1, rows };
  console.log(`  small dataset: ${countsLine(rows, 50)}`);
  rec.add({
    id: "generate.small",
    measurement: "Generate the small dataset (50 sessions)",
    unit: "ms",
    summary: summarize(times),
    target: null,
    notes: [`whole \`proofgate demo\` process; the generator's own time median ${summarize(generatorMs).median.toFixed(0)} ms`],
  });
  return file;
}

export async function measureLargeGeneration(ctx: Pick<BenchContext, "rec">, file: string, sessions: number): Promise<void> {
  const { summary, processMs } = await generate(file, sessions, 1);
  ctx.rec.datasets.large = { sessions, seed: 1, rows: summary.rows, generatorMs: summary.milliseconds };
  const line = countsLine(summary.rows, sessions);
  console.log(`  large dataset: ${line}`);
  ctx.rec.add({
    id: "generate.large",
    measurement: `Generate the large dataset (${sessions.toLocaleString("en-US")} sessions)`,
    unit: "ms",
    summary: summarize([processMs]),
    target: sessions >= 10_000 ? { stat: "median", op: "<=", value: 180_000 } : null,
    targetText: "under 3 minutes",
    notes: [`one run (it is the measured database); generator's own time ${summary.milliseconds.toLocaleString("en-US")} ms`, `rows: ${line}`],
  });
}
