import { Presets, SingleBar } from "cli-progress";
import { type ProgressListener, type ProgressUpdate, noProgress } from "@/server/services/progress";
import { UsageError } from "./errors";

/** Off a terminal: milliseconds between progress lines, unless `intervalMs` is given. */
export const PROGRESS_INTERVAL_ENV = "PROOFGATE_PROGRESS_INTERVAL_MS";
const DEFAULT_INTERVAL_MS = 5_000;
const MAX_INTERVAL_MS = 3_600_000;
/** On a terminal: the bar is handed a new count at most this often (a service may report every row). */
const BAR_UPDATE_MS = 100;
/** On a terminal: a phase shorter than this draws no bar (a 30 ms `check` is not worth a line). */
const BAR_DELAY_MS = 500;

export interface ProgressDisplayOptions {
  quiet?: boolean;
  json?: boolean;
  /** Where progress goes (default stderr: stdout keeps the result alone). */
  stream?: NodeJS.WriteStream;
  /** Draw a bar (default: whether `stream` is a terminal). */
  isTTY?: boolean;
  /** Off a terminal, the time between lines (default PROOFGATE_PROGRESS_INTERVAL_MS, else 5 s). */
  intervalMs?: number;
  /** The word that starts each line off a terminal and each bar, e.g. the command (default "proofgate"). */
  label?: string;
}

export interface ProgressDisplay {
  listener: ProgressListener;
  /** Ends the phase under way (its bar or final line); call it once the work is over, failed or not. */
  stop(): void;
}

/** One phase as shown: its counts so far, when it began, and recent counts for the current rate. */
interface Phase {
  phase: string;
  unit: string;
  total: number | null;
  done: number;
  started: number;
  /** (time, done) every SAMPLE_MS or more, the last RATE_WINDOW_MS of them. */
  samples: { at: number; done: number }[];
}

/** The rate shown while a phase runs is over its last 10 s, so the time left follows a phase that slows down. */
const SAMPLE_MS = 500;
const RATE_WINDOW_MS = 10_000;

/** How a phase is drawn: a bar on a terminal, lines otherwise. */
interface View {
  begin(phase: Phase): void;
  update(phase: Phase): void;
  end(phase: Phase): void;
}

/**
 * Shows the progress a service reports while a command works (import, demo, check, purge,
 * backup), on stderr. On a terminal, a cli-progress bar per phase that runs half a second or more:
 * done/total, percentage, rate and time left (a count and a rate when the total is unknown). Off a
 * terminal, one line every few seconds, and a final line for a phase that ran long enough to print
 * one. Either way quick work shows nothing.
 * Nothing at all with --quiet or --json. The service may call the listener for every row: the
 * display decides how often anything is drawn.
 */
export function createProgressDisplay(options: ProgressDisplayOptions = {}): ProgressDisplay {
  const intervalMs = options.intervalMs ?? intervalFromEnv();
  if (options.quiet || options.json) return { listener: noProgress, stop: () => {} };
  const stream = options.stream ?? process.stderr;
  const label = options.label ?? "proofgate";
  const view = (options.isTTY ?? stream.isTTY === true) ? barView(stream, label) : lineView(stream, label, intervalMs);
  let current: Phase | null = null;
  /** The last phase that reached its total, to drop a repeated report of its final count. */
  let finished: Phase | null = null;

  const end = () => {
    if (current) view.end(current);
    finished = current;
    current = null;
  };
  const listener: ProgressListener = (update: ProgressUpdate) => {
    if (current && (update.phase !== current.phase || update.unit !== current.unit || update.done < current.done)) end();
    if (!current) {
      if (finished && update.phase === finished.phase && update.unit === finished.unit && update.done === finished.done) return;
      finished = null;
      const now = Date.now();
      current = { phase: update.phase, unit: update.unit, total: update.total, done: update.done, started: now, samples: [{ at: now, done: update.done }] };
      view.begin(current);
    } else {
      current.done = update.done;
      current.total = update.total;
      sample(current);
      // The update that completes a phase is drawn once, as its end (not also as an interval's line).
      if (!complete(current)) view.update(current);
    }
    if (complete(current)) end();
  };
  return { listener, stop: end };
}

function sample(phase: Phase): void {
  const now = Date.now();
  if (now - phase.samples.at(-1)!.at < SAMPLE_MS) return;
  phase.samples.push({ at: now, done: phase.done });
  while (now - phase.samples[0]!.at > RATE_WINDOW_MS) phase.samples.shift();
}

const complete = (phase: Phase) => phase.total !== null && phase.done >= phase.total;

function intervalFromEnv(): number {
  const raw = process.env[PROGRESS_INTERVAL_ENV];
  if (raw === undefined || raw === "") return DEFAULT_INTERVAL_MS;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_INTERVAL_MS)
    throw new UsageError(`${PROGRESS_INTERVAL_ENV}: must be an integer from 1 to ${MAX_INTERVAL_MS} (milliseconds)`);
  return n;
}

/** Off a terminal: `import: logs 120000/1000000 rows (24%), 31000 rows/s, about 28 s left`. */
function lineView(stream: NodeJS.WritableStream, label: string, intervalMs: number): View {
  let lastLine = 0;
  let printed = false;
  return {
    begin(phase) {
      lastLine = phase.started;
      printed = false;
    },
    update(phase) {
      const now = Date.now();
      if (now - lastLine < intervalMs) return;
      lastLine = now;
      printed = true;
      const left = secondsLeft(phase, now);
      stream.write(`${label}: ${counts(phase)}${rateText(phase, now, ", ", true)}${left === null ? "" : `, about ${duration(left)} left`}\n`);
    },
    end(phase) {
      // A phase quicker than one interval printed nothing and needs no closing line either.
      if (!printed && Date.now() - phase.started < intervalMs) return;
      const now = Date.now();
      stream.write(`${label}: ${counts(phase)} in ${duration((now - phase.started) / 1000)}${rateText(phase, now, ", ", false)}\n`);
    },
  };
}

/** The bar is as wide as the terminal leaves room for, within these bounds (cut at the edge below the minimum). */
const BAR_MIN = 10;
const BAR_MAX = 40;

/** One width for the whole phase (a bar that shrank as its text grew would jitter): room for the widest text it may show. */
function barSize(stream: NodeJS.WriteStream, label: string, phase: Phase): number {
  const total = String(phase.total);
  const widest = `${label}: ${phase.phase}  100% | ${total}/${total} ${phase.unit} | ${"9".repeat(Math.max(4, total.length))} ${phase.unit}/s | 59 min 59 s left`;
  return Math.max(BAR_MIN, Math.min(BAR_MAX, (stream.columns || 80) - 1 - widest.length));
}

/** On a terminal: `demo: generating ████░░░░ 40% | 120/300 sessions | 85 sessions/s | 2.1 s left`, a cli-progress bar per phase redrawn in place, left on its own line when the phase ends. */
function barView(stream: NodeJS.WriteStream, label: string): View {
  let bar: SingleBar | null = null;
  let lastUpdate = 0;
  const payload = (phase: Phase, now: number, final = false) => {
    const left = secondsLeft(phase, now);
    return {
      label,
      phase: phase.phase,
      unit: phase.unit,
      rate: rateText(phase, now, " | ", !final),
      time: final ? ` | in ${duration((now - phase.started) / 1000)}` : left === null ? "" : ` | ${duration(left)} left`,
    };
  };
  /** The bar appears once the phase has run BAR_DELAY_MS: quick work leaves no bar behind. */
  const shown = (phase: Phase, now: number): SingleBar | null => {
    if (bar || now - phase.started < BAR_DELAY_MS) return bar;
    bar = new SingleBar(
      {
        stream,
        format:
          phase.total === null ? "{label}: {phase} {value} {unit}{rate}{time}" : "{label}: {phase} {bar} {percentage}% | {value}/{total} {unit}{rate}{time}",
        barsize: barSize(stream, label, phase),
        fps: 1000 / BAR_UPDATE_MS,
        // Cut at the terminal's edge rather than switching wrapping off: a bar killed by Ctrl-C
        // (no SIGINT handler here: a synchronous service could not run it) leaves the terminal as it was.
        linewrap: true,
        hideCursor: false,
        gracefulExit: false,
        // `isTTY: true` on a stream that is not one still draws (a line per redraw), as asked.
        noTTYOutput: stream.isTTY !== true,
        notTTYSchedule: BAR_UPDATE_MS,
      },
      Presets.shades_classic,
    );
    bar.start(phase.total ?? 0, phase.done, payload(phase, now));
    lastUpdate = now;
    return bar;
  };
  return {
    begin() {
      bar = null;
    },
    update(phase) {
      const now = Date.now();
      if (now - lastUpdate < BAR_UPDATE_MS) return;
      const drawn = shown(phase, now);
      if (!drawn) return;
      lastUpdate = now;
      if (phase.total !== null && phase.total !== drawn.getTotal()) drawn.setTotal(phase.total);
      drawn.update(phase.done, payload(phase, now));
    },
    end(phase) {
      const now = Date.now();
      const drawn = shown(phase, now);
      if (!drawn) return;
      if (phase.total !== null && phase.total !== drawn.getTotal()) drawn.setTotal(phase.total);
      drawn.update(phase.done, payload(phase, now, true));
      drawn.stop();
      bar = null;
    },
  };
}

function counts(phase: Phase): string {
  if (phase.total === null) return `${phase.phase} ${phase.done} ${phase.unit}`;
  const percent = phase.total === 0 ? 100 : Math.floor((100 * phase.done) / phase.total);
  return `${phase.phase} ${phase.done}/${phase.total} ${phase.unit} (${percent}%)`;
}

/**
 * Units per second: over the last RATE_WINDOW_MS while the phase runs (`recent`), else since it
 * began; null before there is anything to divide.
 */
function rate(phase: Phase, now: number, recent: boolean): number | null {
  const from = recent ? phase.samples.find((s) => now - s.at <= RATE_WINDOW_MS) : undefined;
  // Under a second of samples is too few to tell: the phase's average then.
  const [at, done] = from && now - from.at >= 1_000 ? [from.at, from.done] : [phase.started, 0];
  const seconds = (now - at) / 1000;
  return seconds > 0 && phase.done > done ? (phase.done - done) / seconds : null;
}

/** Below this many units a rate says nothing the count does not ("0.4 checks/s"): it is left out. */
const RATE_FROM_TOTAL = 100;

function rateText(phase: Phase, now: number, separator: string, recent: boolean): string {
  const r = rate(phase, now, recent);
  if (r === null || (phase.total !== null && phase.total < RATE_FROM_TOTAL)) return "";
  return `${separator}${r >= 10 ? Math.round(r) : r.toFixed(1)} ${phase.unit}/s`;
}

function secondsLeft(phase: Phase, now: number): number | null {
  const r = rate(phase, now, true);
  return phase.total === null || r === null ? null : Math.max(0, phase.total - phase.done) / r;
}

/** 3.2 s, 28 s, 4 min 10 s, 1 h 5 min. */
export function duration(seconds: number): string {
  const tenths = Math.round(seconds * 10);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
