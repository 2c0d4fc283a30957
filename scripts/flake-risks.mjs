// The tests that still touch real time, randomness or ports: each use is where a test could come to
// depend on the machine's clock, load or luck, so each carries its reason (a hang guard, a unique
// name, an absence check, a port the kernel chose) or is fixed. Prints one line per use with its
// reason, grouped by kind, and a count per kind; `--check` fails naming every use without one
// (test/flake-risks.test.ts runs it, so a new use needs a reason to land):
//   node scripts/flake-risks.mjs [--kind time|random|port|wait] [--check]
//
// A reason is written in the code, where the next reader meets the use:
//   - on the line, or in the comment lines right above it: `flake-risk: <why this cannot flake>`;
//   - once for a whole file: `flake-risks <kind>[,<kind>…]: <why>` covers every use of those kinds in it.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

export const KINDS = {
  time: { what: "reads the wall clock", pattern: /\bDate\.now\(\)|\bnew Date\(\)|\bperformance\.now\(\)/ },
  random: { what: "unseeded randomness", pattern: /\bMath\.random\(|\brandomBytes\(|\brandomUUID\(/ },
  // A server of the test's own on port 0 keeps its port: only a port chosen, closed and used later counts.
  port: { what: "a port chosen then closed (another process may take it)", pattern: /\bclosedPort\(|\bfreePort\(|\bclosed\.listen\(0\b/ },
  // `test.setTimeout` is a test's time limit, not a wait.
  wait: { what: "waits for a fixed time", pattern: /(?<!test\.)\bsetTimeout\(|\bsleep\(|\bwaitForTimeout\(|\bpg_sleep\(/ },
};
const ROOTS = ["app", "db", "server", "test", "e2e", "bench"];
const SKIP = new Set(["node_modules", ".next", "dist"]);
const isTestCode = (file) => /\.(test|spec)\.ts$/.test(file) || file.startsWith("test/") || file.startsWith("e2e/");
const LINE_REASON = /flake-risk:(.*)$/;
const FILE_REASON = /flake-risks ([a-z,]+):(.*)$/;
/** The text of a reason without the spaces around it or a closing `*\/`; an empty one is no reason. */
const clean = (text) => text.trim().replace(/\*\/$/, "").trim() || null;
const isComment = (line) => /^\s*(\/\/|\*|\/\*)/.test(line);

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : entry.name.endsWith(".ts") ? [full.split(path.sep).join("/")] : [];
  });
}

/** A reason on the line itself or in the comment block right above it (a long reason may wrap). */
function lineReason(lines, i) {
  const own = LINE_REASON.exec(lines[i]);
  if (own && clean(own[1])) return clean(own[1]);
  for (let j = i - 1; j >= 0 && isComment(lines[j]); j--) {
    const found = LINE_REASON.exec(lines[j]);
    if (found && clean(found[1])) return [clean(found[1]), ...lines.slice(j + 1, i).map((l) => l.replace(/^\s*(\/\/|\*)\s?/, "").trim())].join(" ").trim();
  }
  return null;
}

/** Every use of the chosen kinds in the test code under `root`, each with its reason or null. */
export function flakeRisks(root, chosen = Object.keys(KINDS)) {
  const found = Object.fromEntries(chosen.map((kind) => [kind, []]));
  for (const file of ROOTS.flatMap((r) => files(path.join(root, r)))
    .map((f) => path.relative(root, f).split(path.sep).join("/"))
    .filter(isTestCode)
    .sort()) {
    const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
    const fileReasons = {};
    for (const line of lines) {
      const m = FILE_REASON.exec(line);
      if (m && clean(m[2])) for (const kind of m[1].split(",")) fileReasons[kind] = clean(m[2]);
    }
    lines.forEach((line, i) => {
      if (isComment(line)) return;
      for (const kind of chosen) {
        if (!KINDS[kind].pattern.test(line)) continue;
        found[kind].push({ at: `${file}:${i + 1}`, code: line.trim().slice(0, 110), reason: lineReason(lines, i) ?? fileReasons[kind] ?? null });
      }
    });
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { kind: { type: "string" }, check: { type: "boolean" } } });
  const chosen = values.kind ? [values.kind] : Object.keys(KINDS);
  for (const kind of chosen) if (!KINDS[kind]) throw new Error(`--kind: one of ${Object.keys(KINDS).join(", ")} (got "${kind}")`);
  const found = flakeRisks(process.cwd(), chosen);
  const missing = [];
  for (const kind of chosen) {
    const uses = found[kind];
    const fileCount = new Set(uses.map((u) => u.at.slice(0, u.at.indexOf(":")))).size;
    console.log(`\n## ${kind}: ${KINDS[kind].what} — ${uses.length} uses in ${fileCount} files`);
    for (const use of uses) {
      console.log(`${use.at}: ${use.code}\n    ${use.reason ? `why: ${use.reason}` : "NO REASON GIVEN"}`);
      if (!use.reason) missing.push(`${use.at} (${kind})`);
    }
  }
  if (values.check && missing.length > 0) {
    console.error(`\n${missing.length} uses without a reason (write "flake-risk: <why>" on or above the line, or fix it):\n${missing.join("\n")}`);
    process.exit(1);
  }
}
