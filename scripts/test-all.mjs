// `npm test`: every test, in stages, printing how long each took. Within a stage the steps run side
// by side: the static checks need no build and each uses one core (typecheck and lint are
// single-threaded), so on a 2-core machine they overlap. The
// test stages (vitest, Playwright, the crash run) each use the whole machine and run one at a time:
// none may race another for the CPU, so a slow machine makes them slower, never different.
//
// A step that fails stops the run: the steps beside it are stopped, and the exit code is non-zero.
//   node scripts/test-all.mjs            (what `npm test` runs)
import { spawn } from "node:child_process";

/** [stage name, [step name, npm script]…] */
const STAGES = [
  [
    "static checks",
    [
      ["typecheck", "typecheck"],
      ["lint", "lint"],
      ["format", "format:check"],
    ],
  ],
  // Not beside typecheck: tsc reads .next/types, which the build writes.
  ["production build", [["build", "build"]]],
  ["unit and integration (vitest)", [["vitest", "test:unit"]]],
  ["end to end (Playwright)", [["playwright", "test:e2e:built"]]],
  ["crash safety", [["crash", "test:crash"]]],
];

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const running = new Set();

function run(name, script) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // Each step in its own process group, so a stop reaches its children (Next's build workers, vitest's forks).
    const child = spawn("npm", ["run", "--silent", script], { stdio: "inherit", detached: true });
    running.add(child);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      running.delete(child);
      const took = seconds(started);
      if (code === 0) {
        console.log(`\n[test-all] ${name}: ok in ${took}`);
        resolve(took);
      } else reject(new Error(`${name} (npm run ${script}) failed after ${took}: ${signal ?? `exit code ${code}`}`));
    });
  });
}

function stopAll() {
  for (const child of running) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}

process.on("SIGINT", () => {
  stopAll();
  process.exit(130);
});
process.on("SIGTERM", () => {
  stopAll();
  process.exit(143);
});

const total = performance.now();
const report = [];
try {
  for (const [stage, steps] of STAGES) {
    const started = performance.now();
    console.log(`\n[test-all] stage: ${stage} (${steps.map(([name]) => name).join(", ")})`);
    const took = await Promise.all(steps.map(([name, script]) => run(name, script)));
    report.push([stage, seconds(started), steps.map(([name], i) => `${name} ${took[i]}`).join(", ")]);
  }
} catch (error) {
  stopAll();
  console.error(`\n[test-all] FAILED: ${error.message}`);
  for (const [stage, took, steps] of report) console.error(`[test-all]   ${stage}: ${took} (${steps})`);
  process.exit(1);
}
console.log("\n[test-all] every stage passed:");
for (const [stage, took, steps] of report) console.log(`[test-all]   ${stage}: ${took} (${steps})`);
console.log(`[test-all]   total: ${seconds(total)}`);
