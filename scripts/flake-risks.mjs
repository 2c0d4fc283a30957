// The tests that still touch real time, randomness or ports: each use is where a test could come to
// depend on the machine's clock, load or luck, so each needs a reason (a hang guard, a seeded
// generator, a port the kernel chose and the code retries on) or a fix. Prints one line per use,
// grouped by kind, and a count per kind:
//   node scripts/flake-risks.mjs [--kind time|random|port|wait]
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const KINDS = {
  time: { what: "reads the wall clock", pattern: /\bDate\.now\(\)|\bnew Date\(\)|\bperformance\.now\(\)/ },
  random: { what: "unseeded randomness", pattern: /\bMath\.random\(|\brandomBytes\(|\brandomUUID\(/ },
  // A server of the test's own on port 0 keeps its port: only a port chosen, closed and used later counts.
  port: { what: "a port chosen then closed (another process may take it)", pattern: /\bclosedPort\(|\bfreePort\(|\bclosed\.listen\(0\b/ },
  wait: { what: "waits for a fixed time", pattern: /\bsetTimeout\(|\bsleep\(|\bwaitForTimeout\(|\bpg_sleep\(/ },
};
const ROOTS = ["app", "db", "server", "test", "e2e", "bench"];
const SKIP = new Set(["node_modules", ".next", "dist"]);
const isTestCode = (file) => /\.(test|spec)\.ts$/.test(file) || file.startsWith("test/") || file.startsWith("e2e/");

const { values } = parseArgs({ options: { kind: { type: "string" } } });
const chosen = values.kind ? [values.kind] : Object.keys(KINDS);
for (const kind of chosen) if (!KINDS[kind]) throw new Error(`--kind: one of ${Object.keys(KINDS).join(", ")} (got "${kind}")`);

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : entry.name.endsWith(".ts") ? [full.split(path.sep).join("/")] : [];
  });
}

const found = Object.fromEntries(chosen.map((kind) => [kind, []]));
for (const file of ROOTS.flatMap(files).filter(isTestCode).sort()) {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return;
    for (const kind of chosen) if (KINDS[kind].pattern.test(line)) found[kind].push(`${file}:${i + 1}: ${line.trim().slice(0, 140)}`);
  });
}
for (const kind of chosen) {
  const uses = found[kind];
  const fileCount = new Set(uses.map((u) => u.slice(0, u.indexOf(":")))).size;
  console.log(`\n## ${kind}: ${KINDS[kind].what} — ${uses.length} uses in ${fileCount} files`);
  for (const use of uses) console.log(use);
}
