// Every test id the suite holds, one per line, sorted: vitest's (file › describe › test, without the
// project, so a file moved between the isolated and the shared projects keeps its id) and
// Playwright's ([project] › file › describe › test). Compare two checkouts' lists with diff to see
// what a change to the suite added or removed:
//   node scripts/test-ids.mjs > /tmp/ids-before.txt   (then again after; diff the two)
// Collecting runs no test, but vitest imports every test file (and its globalSetup builds the CLI).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-test-ids-"));
try {
  const vitestFile = path.join(tmp, "vitest.json");
  execFileSync("npx", ["vitest", "list", `--json=${vitestFile}`], { stdio: ["ignore", "ignore", "inherit"] });
  const root = process.cwd();
  const vitest = JSON.parse(fs.readFileSync(vitestFile, "utf8")).map((t) => `vitest › ${path.relative(root, t.file).split(path.sep).join("/")} › ${t.name}`);

  const listing = execFileSync("npx", ["playwright", "test", "--list", "--reporter=json"], { encoding: "utf8", maxBuffer: 64 << 20 });
  const report = JSON.parse(listing);
  const playwright = [];
  const walk = (suite, titles) => {
    const here = suite.title && !suite.title.endsWith(".ts") ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      // A tag in the title (`@mobile`) says where a test runs, not what it proves: it is left out of the id.
      const title = spec.title.replace(/ @[\w-]+/g, "");
      for (const test of spec.tests) playwright.push(`playwright › [${test.projectName}] › ${spec.file} › ${[...here, title].join(" › ")}`);
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites) walk(suite, []);

  const ids = [...vitest, ...playwright].sort();
  process.stdout.write(`${ids.join("\n")}\n`);
  console.error(`${vitest.length} vitest ids, ${playwright.length} Playwright ids`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
