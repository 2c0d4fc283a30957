import fs from "node:fs";
import os from "node:os";
import type { Summary } from "./stats";

/** A target from issue 6's table: the statistic it is judged on, the bound and its direction. */
export interface Target {
  /** max: every sample within the bound (a peak over repeated runs). */
  stat: "median" | "p95" | "max";
  op: "<=" | ">=";
  value: number;
}

export interface Row {
  /** Stable key in results.json. */
  id: string;
  /** What was measured, as printed. */
  measurement: string;
  unit: string;
  summary: Summary;
  target: Target | null;
  /** The target as the issue words it, when it is not a plain bound on one figure. */
  targetText?: string;
  /** null: informational, no target. */
  met: boolean | null;
  /** How it was measured, the ratio to the engine's own rate, counts… */
  notes: string[];
  extra?: Record<string, unknown>;
}

export interface Results {
  startedAt: string;
  finishedAt: string;
  quick: boolean;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string; loadAverage: number[] };
  datasets: Record<string, unknown>;
  rows: Row[];
  /** Measurements that could not run, with the reason (and what the server logged meanwhile). */
  failures: Failure[];
}

export interface Failure {
  id: string;
  error: string;
  serverLog?: string;
}

export class Recorder {
  readonly rows: Row[] = [];
  readonly failures: Failure[] = [];
  readonly datasets: Record<string, unknown> = {};
  private readonly startedAt = new Date();

  constructor(private readonly quick: boolean) {}

  add(row: Omit<Row, "met" | "notes"> & { notes?: string[]; met?: boolean | null }): Row {
    const met = row.met !== undefined ? row.met : row.target ? judge(row.summary, row.target) : null;
    const full: Row = { ...row, notes: row.notes ?? [], met };
    this.rows.push(full);
    console.log(
      `  ${full.measurement}: median ${fmt(full.summary.median)} ${full.unit}, p95 ${fmt(full.summary.p95)} ${full.unit} (n=${full.summary.n})${full.notes.length ? ` — ${full.notes.join("; ")}` : ""}`,
    );
    return full;
  }

  fail(id: string, error: unknown, serverLog = ""): void {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.failures.push({ id, error: message.split("\n").slice(0, 6).join("\n"), ...(serverLog ? { serverLog } : {}) });
    console.error(`  ✗ ${id} failed: ${message.split("\n")[0]}`);
    if (serverLog) console.error(`  the server's output meanwhile:\n${serverLog.replace(/^/gm, "    ")}`);
  }

  results(): Results {
    const cpus = os.cpus();
    return {
      startedAt: this.startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      quick: this.quick,
      machine: {
        cpus: cpus.length,
        cpuModel: cpus[0]?.model ?? "unknown",
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        platform: `${os.type()} ${os.release()}`,
        loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      },
      datasets: this.datasets,
      rows: this.rows,
      failures: this.failures,
    };
  }

  write(file: string): void {
    fs.writeFileSync(file, `${JSON.stringify(this.results(), null, 2)}\n`);
  }

  /** The one table: measurement, median, p95, target, met?; notes below it. */
  print(): void {
    const header = ["measurement", "median", "p95", "target", "met?"];
    const lines = this.rows.map((r) => [
      r.measurement,
      `${fmt(r.summary.median)} ${r.unit}`,
      `${fmt(r.summary.p95)} ${r.unit}`,
      r.targetText ?? (r.target ? `${r.target.stat} ${r.target.op} ${fmt(r.target.value)} ${r.unit}` : "—"),
      r.met === null ? "—" : r.met ? "yes" : "NO",
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 || i === 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
    console.log(`\n${line(header)}\n|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
    for (const l of lines) console.log(line(l));
    console.log("\nNotes:");
    for (const r of this.rows) if (r.notes.length) console.log(`- ${r.measurement}: ${r.notes.join("; ")}`);
    for (const f of this.failures) console.log(`- NOT MEASURED ${f.id}: ${f.error.split("\n")[0]}`);
  }
}

export function judge(summary: Summary, target: Target): boolean {
  const value = summary[target.stat];
  if (!Number.isFinite(value)) return false;
  return target.op === "<=" ? value <= target.value : value >= target.value;
}

/** Three significant figures, no exponent. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}
