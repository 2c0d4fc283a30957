import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PROGRESS_INTERVAL_ENV, createProgressDisplay, duration } from "./progress";

/** A stderr stand-in: what was written, as a terminal or not. */
function fakeStream(isTTY: boolean, columns = 120) {
  const chunks: string[] = [];
  const stream = {
    isTTY,
    columns,
    write(chunk: string | Uint8Array, ...rest: unknown[]) {
      chunks.push(String(chunk));
      const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      callback?.();
      return true;
    },
  };
  return {
    stream: stream as unknown as NodeJS.WriteStream,
    text: () => chunks.join(""),
    // What a reader sees: escape sequences (cursor moves, clears) taken out.
    plain: () => chunks.join("").replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, ""),
  };
}

const logs = (done: number, total: number | null = 1_000_000) => ({ phase: "logs", done, total, unit: "rows" });

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe("off a terminal", () => {
  it("prints one line per interval with done/total, percentage, rate and time left, then a final line", () => {
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream, intervalMs: 5_000, label: "import" });
    display.listener(logs(0));
    for (let t = 100; t <= 12_000; t += 100) {
      vi.setSystemTime(t);
      display.listener(logs(t * 10));
    }
    expect(out.text()).toBe(
      "import: logs 50000/1000000 rows (5%), 10000 rows/s, about 1 min 35 s left\n" +
        "import: logs 100000/1000000 rows (10%), 10000 rows/s, about 1 min 30 s left\n",
    );
    vi.setSystemTime(14_000);
    display.listener(logs(1_000_000));
    expect(out.text().split("\n").at(-2)).toBe("import: logs 1000000/1000000 rows (100%) in 14 s, 71429 rows/s");
    display.stop();
    expect(out.text().split("\n")).toHaveLength(4);
  });

  it("prints the update that completes a phase once, as its final line, even when an interval is also due", () => {
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream, intervalMs: 1_000, label: "backup" });
    display.listener({ phase: "copying", done: 0, total: 500, unit: "pages" });
    vi.setSystemTime(1_000);
    display.listener({ phase: "copying", done: 200, total: 500, unit: "pages" });
    vi.setSystemTime(2_500);
    display.listener({ phase: "copying", done: 500, total: 500, unit: "pages" });
    // The last count reported again is not shown again.
    display.listener({ phase: "copying", done: 500, total: 500, unit: "pages" });
    display.stop();
    expect(out.text()).toBe("backup: copying 200/500 pages (40%), 200 pages/s, about 1.5 s left\nbackup: copying 500/500 pages (100%) in 2.5 s, 200 pages/s\n");
  });

  it("gives the rate and time left of the last 10 s, so a phase that slows down is not promised early; the final line its average", () => {
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream, intervalMs: 10_000, label: "import" });
    display.listener(logs(0, 20_000));
    for (let t = 100; t <= 20_000; t += 100) {
      vi.setSystemTime(t);
      // 1000 rows/s for 10 s, then 100 rows/s.
      display.listener(logs(t <= 10_000 ? t : 10_000 + (t - 10_000) / 10, 20_000));
    }
    vi.setSystemTime(29_000);
    display.listener(logs(20_000, 20_000));
    expect(out.text()).toBe(
      [
        "import: logs 10000/20000 rows (50%), 1000 rows/s, about 10 s left",
        "import: logs 11000/20000 rows (55%), 100 rows/s, about 1 min 30 s left",
        "import: logs 20000/20000 rows (100%) in 29 s, 690 rows/s",
        "",
      ].join("\n"),
    );
  });

  it("stays silent for a phase quicker than one interval", () => {
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream, intervalMs: 5_000 });
    for (let done = 0; done <= 1000; done++) display.listener({ phase: "checking", done, total: 1000, unit: "rows" });
    vi.setSystemTime(4_000);
    display.stop();
    expect(out.text()).toBe("");
  });

  it("shows a count and a rate when the total is unknown, and closes the phase on stop()", () => {
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream, intervalMs: 1_000, label: "check" });
    display.listener({ phase: "scanning", done: 0, total: null, unit: "rows" });
    vi.setSystemTime(1_000);
    display.listener({ phase: "scanning", done: 2_500, total: null, unit: "rows" });
    vi.setSystemTime(1_500);
    display.listener({ phase: "scanning", done: 3_000, total: null, unit: "rows" });
    display.stop();
    expect(out.text()).toBe("check: scanning 2500 rows, 2500 rows/s\ncheck: scanning 3000 rows in 1.5 s, 2000 rows/s\n");
  });

  it("ends a phase when the next begins, each with its own clock", () => {
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream, intervalMs: 1_000, label: "demo" });
    display.listener({ phase: "generating", done: 0, total: 4, unit: "sessions" });
    vi.setSystemTime(2_000);
    display.listener({ phase: "generating", done: 2, total: 4, unit: "sessions" });
    vi.setSystemTime(3_000);
    display.listener({ phase: "finishing", done: 0, total: 2, unit: "steps" });
    vi.setSystemTime(3_500);
    display.listener({ phase: "finishing", done: 2, total: 2, unit: "steps" });
    display.stop();
    expect(out.text()).toBe(
      [
        // Under a hundred units, a rate ("0.7 sessions/s") says nothing the count does not.
        "demo: generating 2/4 sessions (50%), about 2.0 s left",
        "demo: generating 2/4 sessions (50%) in 3.0 s",
        // The finishing phase took half an interval and printed nothing.
        "",
      ].join("\n"),
    );
  });

  it("without PROOFGATE_PROGRESS_INTERVAL_MS, prints a line every 5 s: none before", () => {
    vi.stubEnv(PROGRESS_INTERVAL_ENV, undefined);
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream });
    display.listener(logs(0, 1000));
    vi.setSystemTime(4_999);
    display.listener(logs(100, 1000));
    expect(out.text()).toBe("");
    vi.setSystemTime(5_000);
    display.listener(logs(200, 1000));
    expect(out.text()).toBe("proofgate: logs 200/1000 rows (20%), 40 rows/s, about 20 s left\n");
  });

  it("takes its interval from PROOFGATE_PROGRESS_INTERVAL_MS, and refuses one that is not a positive integer, naming it", () => {
    vi.stubEnv(PROGRESS_INTERVAL_ENV, "200");
    const out = fakeStream(false);
    const display = createProgressDisplay({ stream: out.stream });
    display.listener(logs(0, 1000));
    vi.setSystemTime(200);
    display.listener(logs(100, 1000));
    expect(out.text()).toBe("proofgate: logs 100/1000 rows (10%), 500 rows/s, about 1.8 s left\n");
    vi.stubEnv(PROGRESS_INTERVAL_ENV, "5s");
    expect(() => createProgressDisplay({ stream: out.stream })).toThrow("PROOFGATE_PROGRESS_INTERVAL_MS: must be an integer from 1 to 3600000 (milliseconds)");
  });
});

describe("on a terminal", () => {
  it("draws a bar with done/total, rate and time left, redrawn as work goes, and leaves it finished on its own line", () => {
    const out = fakeStream(true);
    const display = createProgressDisplay({ stream: out.stream, label: "demo" });
    display.listener({ phase: "generating", done: 0, total: 300, unit: "sessions" });
    for (let done = 1; done <= 300; done++) {
      vi.setSystemTime(done * 10);
      display.listener({ phase: "generating", done, total: 300, unit: "sessions" });
    }
    const plain = out.plain();
    // Every frame in between says how far, how fast and how long still: 10 ms a session.
    const frames = [...plain.matchAll(/demo: generating [█░]+ (\d+)% \| (\d+)\/300 sessions \| 100 sessions\/s \| ([\d.]+) s left/g)];
    expect(frames.length).toBeGreaterThan(5);
    for (const [frame, percent, done, left] of frames) {
      expect(Number(percent), frame).toBe(Math.floor(Number(done) / 3));
      expect(Number(left), frame).toBeCloseTo((300 - Number(done)) / 100, 1);
    }
    expect(plain).toMatch(/100% \| 300\/300 sessions \| 100 sessions\/s \| in 3\.0 s\n$/);
    expect(plain).toContain("█");
    // Redrawn in place (cursor to the line's start), not a line per update.
    expect(out.text()).toContain("\x1b[1G");
    expect(plain.split("\n")).toHaveLength(2);
    display.stop();
    expect(out.plain()).toBe(plain);
  });

  it("fits the terminal: one bar width for the whole phase, every frame within the columns", () => {
    for (const [columns, widths] of [
      [80, /^[█░]{10,39}$/],
      [200, /^[█░]{40}$/],
    ] as const) {
      const out = fakeStream(true, columns);
      const display = createProgressDisplay({ stream: out.stream, label: "import" });
      for (let done = 0; done <= 1_000_000; done += 5_000) {
        vi.setSystemTime(done / 100);
        display.listener(logs(done));
      }
      const frames = out.plain().split(/(?=import: )/);
      expect(frames.length).toBeGreaterThan(20);
      const bars = new Set(frames.map((f) => /[█░]+/.exec(f)![0].length));
      expect(bars.size, `columns ${columns}`).toBe(1);
      expect("█".repeat([...bars][0]!)).toMatch(widths);
      // Within the columns, and not by cutting the end off: the time is there.
      for (const frame of frames.slice(1)) {
        expect(frame.replace(/\n$/, "").length, frame).toBeLessThanOrEqual(columns);
        expect(frame, frame).toMatch(/( left| in [\d.]+ s)\n?$/);
      }
    }
  });

  it("draws nothing for a phase shorter than half a second", () => {
    const out = fakeStream(true);
    const display = createProgressDisplay({ stream: out.stream, label: "check" });
    for (let done = 0; done <= 7; done++) {
      vi.setSystemTime(done * 60);
      display.listener({ phase: "checking", done, total: 7, unit: "checks" });
    }
    display.stop();
    expect(out.text()).toBe("");
  });

  it("shows a count and a rate when the total is unknown", () => {
    const out = fakeStream(true);
    const display = createProgressDisplay({ stream: out.stream, label: "check" });
    display.listener({ phase: "scanning", done: 0, total: null, unit: "rows" });
    vi.setSystemTime(2_000);
    display.listener({ phase: "scanning", done: 4_000, total: null, unit: "rows" });
    display.stop();
    expect(out.plain()).toMatch(/check: scanning 4000 rows \| 2000 rows\/s \| in 2\.0 s\n$/);
    expect(out.plain()).not.toContain("%");
  });

  it("a bar per phase, each ended when the next begins", () => {
    const out = fakeStream(true);
    const display = createProgressDisplay({ stream: out.stream, label: "demo" });
    display.listener({ phase: "generating", done: 0, total: 2, unit: "sessions" });
    vi.setSystemTime(1_000);
    display.listener({ phase: "generating", done: 2, total: 2, unit: "sessions" });
    display.listener({ phase: "finishing", done: 0, total: 2, unit: "steps" });
    vi.setSystemTime(1_500);
    display.listener({ phase: "finishing", done: 1, total: 2, unit: "steps" });
    display.stop();
    const lines = out.plain().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/demo: generating .* 100% \| 2\/2 sessions \| in 1\.0 s$/);
    expect(lines[1]).toMatch(/demo: finishing .* 50% \| 1\/2 steps \| in 0\.5 s$/);
  });
});

describe("--quiet and --json", () => {
  for (const flags of [{ quiet: true }, { json: true }, { quiet: true, json: true }]) {
    it(`writes nothing with ${JSON.stringify(flags)}, on a terminal or not`, () => {
      for (const isTTY of [true, false]) {
        const out = fakeStream(isTTY);
        const display = createProgressDisplay({ ...flags, stream: out.stream, intervalMs: 1 });
        for (let t = 0; t <= 1_000; t += 10) {
          vi.setSystemTime(t);
          display.listener(logs(t, 1_000));
        }
        display.listener({ phase: "other", done: 5, total: null, unit: "pages" });
        vi.setSystemTime(5_000);
        display.stop();
        expect(out.text(), `isTTY ${isTTY}`).toBe("");
      }
    });
  }
});

describe("duration", () => {
  it("reads as a person would say it", () => {
    expect([0.04, 3.24, 9.96, 28.4, 250, 3_900].map(duration)).toEqual(["0.0 s", "3.2 s", "10 s", "28 s", "4 min 10 s", "1 h 5 min"]);
  });
});
