/**
 * Issue 18's large BAZINGA import. The file is synthesized here in BAZINGA's own v19 schema (taken
 * from the fixture BAZINGA's init_db.py wrote) with the distributions of a real history (see
 * synthesizeBazinga); the import is measured as a user meets it: the CLI process's wall time and
 * peak RSS, `proofgate check` on the result, the re-import of the same file, and `--follow` while
 * rows are appended.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { type BenchContext } from "../lib/context";
import { ROOT, type RunResult, proofgate } from "../lib/proc";
import { now, sleep, summarize } from "../lib/stats";

const FIXTURE = path.join(ROOT, "server/services/import/fixtures/bazinga-v19-sample.db");
const CLI = path.join(ROOT, "bin", "proofgate.mjs");

const REQUIREMENTS = [
  "Add JWT authentication to the API",
  "Improve coverage to 80% on the core package",
  "Migrate the billing service to Postgres 16",
  "Fix the flaky checkout integration tests",
  "Add rate limiting to the public endpoints",
  "Résumé parser: handle ü, é and 中文",
  "Split the monolith's reporting module into a service",
  "Add dark mode to the settings page",
];
const CRITERIA = ["All tests passing", "Coverage >70%", "Build succeeds on CI", "p95 latency < 200ms", "No new lint warnings", "Docs updated"];
const AGENTS = ["project_manager", "developer", "senior_software_engineer", "qa_expert", "tech_lead", "investigator", "requirements_engineer"];
const PHASES = ["understanding", "approach", "decisions", "risks", "blockers", "pivot", "completion"];
const CONFIDENCE = ["high", "medium", "low"];
const GROUP_STATUS = ["pending", "in_progress", "completed", "failed", "approved_pending_merge", "merging"];
const SAYINGS = [
  "Planning work",
  "Implemented the change and ran the unit tests: 142 passed",
  "CHANGES_REQUESTED: fix naming in the handler",
  "APPROVED: the diff is small and covered by tests",
  "Investigated the failing test: a race on the shared fixture",
  "READY_FOR_QA: branch pushed",
  "PASS: integration suite green on CI",
];
/** Lines an agent's report is made of (BAZINGA logs each agent's whole response: hundreds to thousands of characters). */
const REPORT_LINES = [
  "## Summary\nImplemented the requested change in src/api/handler.ts and added tests for the edge cases.",
  "- Files changed: src/auth/jwt.ts, src/auth/middleware.ts, test/auth/jwt.test.ts",
  "- Tests: `npm test` → 142 passed, 0 failed (4.2 s)",
  "```ts\nexport function verify(token: string): Claims {\n  return jwt.verify(token, key) as Claims;\n}\n```",
  "The failing case was a race between the fixture's teardown and the server's shutdown hook; awaiting close() fixes it.",
  "Coverage on the package went from 64.1% to 81.7% (lines), 58% to 77% (branches).",
  "Next: QA to run the integration suite against the staging database.",
  "Blocked on the billing service's schema: the migration needs a lock the nightly job holds.",
  "Reviewed the diff: naming is consistent, error paths are covered, no new dependencies.",
  "Risk: the cache key changes, so the first request after deploy misses; acceptable per the PM.",
];
/** A few rows carry a secret, as real agent output sometimes does: the importer must redact them. */
const SECRETS = ["api_key=sk-live-4f9a8b7c6d5e4f3a2b1c", "export GITHUB_TOKEN=ghp_0123456789abcdefABCDEF0123456789abcd", "password: hunter2-prod"];
const EVENTS = ["tl_issues", "tl_issue_responses", "scope_change", "investigation_iteration"];
const READERS = ["developer", "qa_expert", "tech_lead", "senior_software_engineer", "investigator"] as const;
const LANGS = ["typescript", "python", "go", "rust"];

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(a: readonly T[]) => a[Math.floor(next() * a.length)]! };
}

/** BAZINGA writes UTC as `YYYY-MM-DD HH:MM:SS` (SQLite's CURRENT_TIMESTAMP). */
const ts = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

export interface BazingaCounts {
  sessions: number;
  task_groups: number;
  success_criteria: number;
  orchestration_logs: number;
  token_usage: number;
  state_snapshots: number;
  skill_outputs: number;
  development_plans: number;
  context_packages: number;
  context_package_consumers: number;
  consumption_scope: number;
  error_patterns: number;
  strategies: number;
  bytes: number;
}

/** The v19 schema, from the fixture BAZINGA's own init_db.py wrote. */
function bazingaSchema(file: string): { ddl: string[]; versions: { version: number; applied_at: string; description: string }[] } {
  // Read the schema from a copy: even a read-only open of a WAL file leaves -shm/-wal files beside it.
  const copy = `${file}.schema-source`;
  fs.copyFileSync(FIXTURE, copy);
  const fixture = new Database(copy, { readonly: true, fileMustExist: true });
  try {
    const ddl = fixture
      .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid")
      .pluck()
      .all() as string[];
    const versions = fixture.prepare("SELECT version, applied_at, description FROM schema_version").all() as {
      version: number;
      applied_at: string;
      description: string;
    }[];
    return { ddl, versions };
  } finally {
    fixture.close();
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${copy}${suffix}`, { force: true });
  }
}

/**
 * Write a BAZINGA v19 database of `sessions` sessions, `logsPerSession` log rows each on average,
 * with the shape BAZINGA's own code gives a history: a PM planning 2–6 task groups (parallel or
 * simple mode) in every one of its statuses, 2–4 success criteria, each agent's whole response
 * logged (a few hundred to a few thousand characters, some with a secret in them), reasoning in
 * every phase with confidence and references, events (the PM's BAZINGA and the validator's verdict
 * once a session ends, tech lead and scope events on the way), a token row per agent spawn, pm and
 * orchestrator state, skill outputs, development plans, context packages with zero to three
 * readers and the consumption scope of those read, and per project error patterns and strategies.
 * Sessions vary in length (a few are ten times the average), as real ones do.
 */
export function synthesizeBazinga(file: string, sessions: number, logsPerSession = 100): BazingaCounts {
  const { ddl, versions } = bazingaSchema(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  for (const sql of ddl) db.exec(sql);
  const insertVersion = db.prepare("INSERT INTO schema_version (version, applied_at, description) VALUES (?, ?, ?)");
  for (const v of versions) insertVersion.run(v.version, v.applied_at, v.description);

  const q = {
    session: db.prepare(
      "INSERT INTO sessions (session_id, start_time, end_time, mode, original_requirements, status, initial_branch, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, 'main', ?, ?)",
    ),
    group: db.prepare(
      "INSERT INTO task_groups (id, session_id, name, status, assigned_to, revision_count, last_review_status, feature_branch, complexity, initial_tier, item_count, qa_attempts, tl_review_attempts, review_iteration, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    criterion: db.prepare(
      "INSERT INTO success_criteria (session_id, criterion, status, actual, evidence, required_for_completion, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    log: db.prepare(
      "INSERT INTO orchestration_logs (session_id, timestamp, iteration, agent_type, agent_id, content, log_type, reasoning_phase, confidence_level, references_json, group_id, event_subtype, event_payload, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    tokens: db.prepare("INSERT INTO token_usage (session_id, timestamp, agent_type, agent_id, tokens_estimated) VALUES (?, ?, ?, ?, ?)"),
    state: db.prepare("INSERT INTO state_snapshots (session_id, group_id, timestamp, state_type, state_data) VALUES (?, 'global', ?, ?, ?)"),
    skill: db.prepare(
      "INSERT INTO skill_outputs (session_id, timestamp, skill_name, output_data, agent_type, group_id, iteration) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    plan: db.prepare(
      "INSERT INTO development_plans (session_id, original_prompt, plan_text, phases, current_phase, total_phases, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    pkg: db.prepare(
      "INSERT INTO context_packages (session_id, group_id, package_type, file_path, producer_agent, priority, summary, size_bytes, scope, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    consumer: db.prepare("INSERT INTO context_package_consumers (package_id, agent_type, consumed_at, iteration) VALUES (?, ?, ?, ?)"),
    scope: db.prepare(
      "INSERT INTO consumption_scope (scope_id, session_id, group_id, agent_type, iteration, package_id, consumed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    pattern: db.prepare(
      "INSERT OR IGNORE INTO error_patterns (pattern_hash, project_id, signature_json, solution, confidence, occurrences, lang, last_seen, created_at, ttl_days) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    strategy: db.prepare(
      "INSERT OR IGNORE INTO strategies (strategy_id, project_id, topic, insight, helpfulness, lang, framework, last_seen, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    finish: db.prepare("UPDATE sessions SET status = ?, end_time = ? WHERE session_id = ?"),
  };
  const counts: BazingaCounts = {
    sessions,
    task_groups: 0,
    success_criteria: 0,
    orchestration_logs: 0,
    token_usage: 0,
    state_snapshots: 0,
    skill_outputs: 0,
    development_plans: 0,
    context_packages: 0,
    context_package_consumers: 0,
    consumption_scope: 0,
    error_patterns: 0,
    strategies: 0,
    bytes: 0,
  };
  const day = 86_400_000;
  const origin = Date.UTC(2026, 0, 1);

  const one = (i: number) => {
    const r = random(1_000 + i);
    let clock = origin + r.int(0, 300) * day + r.int(0, day);
    const tick = () => (clock += r.int(1, 90) * 1000);
    const start = clock;
    const stamp = new Date(start).toISOString().replace(/[-:]/g, "").slice(0, 15).replace("T", "_");
    const id = `bazinga_${stamp}_${String(i).padStart(4, "0")}`;
    const project = `project_${i % 25}`;
    const status = r.next() < 0.6 ? "completed" : r.next() < 0.6 ? "failed" : "active";
    const mode = r.next() < 0.7 ? "parallel" : "simple";
    const requirements = `${r.pick(REQUIREMENTS)} (#${i})`;

    const groups = Array.from({ length: r.int(2, 6) }, (_, g) => (mode === "parallel" ? String.fromCharCode(65 + g) : `group_${String.fromCharCode(97 + g)}`));
    const criteria = [...CRITERIA].sort(() => r.next() - 0.5).slice(0, r.int(2, 4));
    // Lengths vary: most sessions near the average, one in twenty several times longer.
    const scale = r.next() < 0.05 ? 3 + r.next() * 4 : 0.35 + r.next() * 0.9;
    const logs = Math.max(8, Math.round(logsPerSession * scale));
    const report = (lines: number) => {
      const parts = [`${r.pick(SAYINGS)}.`];
      for (let k = 0; k < lines; k++) parts.push(r.pick(REPORT_LINES));
      if (r.next() < 0.01) parts.push(r.pick(SECRETS));
      return parts.join("\n\n");
    };

    q.session.run(
      id,
      ts(start),
      null,
      mode,
      requirements,
      "active",
      r.next() < 0.3 ? JSON.stringify({ source: "bench", priority: r.int(1, 3) }) : null,
      ts(start),
    );
    for (const [g, group] of groups.entries()) {
      const groupStatus = status === "completed" ? (r.next() < 0.85 ? "completed" : "approved_pending_merge") : r.pick(GROUP_STATUS);
      const created = ts(tick());
      q.group.run(
        group,
        id,
        `Group ${group}: ${r.pick(["api", "tests", "auth", "ui", "migrations", "docs"])}`,
        groupStatus,
        `developer_${(g % 3) + 1}`,
        r.int(0, 3),
        r.next() < 0.5 ? "APPROVED" : "CHANGES_REQUESTED",
        `feature/${id}-${group.toLowerCase()}`,
        r.int(1, 10),
        r.next() < 0.8 ? "Developer" : "Senior Software Engineer",
        r.int(1, 5),
        r.int(0, 3),
        r.int(0, 2),
        r.int(1, 3),
        created,
        ts(tick()),
      );
      counts.task_groups += 1;
    }
    q.state.run(
      id,
      ts(tick()),
      "pm",
      JSON.stringify({
        mode,
        iteration: r.int(1, 9),
        original_requirements: requirements,
        task_groups: groups.map((g) => ({ id: g, name: `Group ${g}`, status: "pending", files: [`src/${g.toLowerCase()}/index.ts`] })),
        success_criteria: criteria.map((c) => ({ criterion: c, status: "pending", required_for_completion: true })),
      }),
    );
    counts.state_snapshots += 1;
    for (const c of criteria) {
      const met = status === "completed" || r.next() < 0.5;
      const cStatus = met ? "met" : r.pick(["pending", "failed", "blocked"]);
      const at = ts(tick());
      q.criterion.run(
        id,
        c,
        cStatus,
        met ? r.pick(["711/711 tests passing", "82%", "green", "143 ms"]) : r.pick(["3 failing", "61%", null]),
        met || cStatus === "blocked" ? `artifacts/${id}/evidence-${r.int(1, 9)}.txt` : null,
        r.next() < 0.9 ? 1 : 0,
        at,
        at,
      );
      counts.success_criteria += 1;
    }
    if (r.next() < 0.3) {
      // BAZINGA's save-development-plan phases: number, name, status, and its extra keys.
      const current = r.int(1, 4);
      const phases = Array.from({ length: r.int(current, 5) }, (_, p) => ({
        phase: p + 1,
        name: r.pick(["Design", "Build", "Test", "Ship", "Harden"]),
        status: p + 1 < current ? "completed" : p + 1 === current ? "in_progress" : "pending",
        description: r.pick(REPORT_LINES),
        requested_now: p + 1 === current,
      }));
      q.plan.run(id, requirements, report(3), JSON.stringify(phases), current, phases.length, ts(start), ts(tick()));
      counts.development_plans += 1;
    }
    // The run: each spawn of an agent logs its response (and maybe its reasoning), with a token row.
    const claims = status === "active" ? 0 : status === "completed" ? r.int(1, 2) : r.int(0, 1);
    for (let l = 0; l < logs; l++) {
      const agent = l === 0 ? "project_manager" : r.pick(AGENTS);
      const agentId = `${agent}_${r.int(1, 3)}`;
      const iteration = Math.floor(l / 8) + 1;
      const group = r.pick(groups);
      const at = ts(tick());
      const kind = r.next();
      if (kind < 0.66) {
        const content = report(r.next() < 0.1 ? r.int(4, 12) : r.int(0, 3));
        counts.bytes += content.length;
        q.log.run(id, at, iteration, agent, agentId, content, "interaction", null, null, null, r.next() < 0.7 ? group : null, null, null, null);
      } else if (kind < 0.97) {
        const phase = r.pick(PHASES);
        const refs = r.next() < 0.4 ? JSON.stringify([`src/${r.pick(["auth", "api", "db"])}/${r.pick(["index", "handler", "schema"])}.ts`]) : null;
        const content = `## ${phase}\n${report(r.int(1, 5))}`;
        counts.bytes += content.length;
        q.log.run(id, at, iteration, agent, agentId, content, "reasoning", phase, r.pick(CONFIDENCE), refs, group, null, null, null);
      } else {
        const subtype = r.pick(EVENTS);
        const payload = JSON.stringify({ group_id: group, iteration, issues: r.int(0, 4), note: r.pick(SAYINGS) });
        q.log.run(id, at, iteration, "tech_lead", null, `Event: ${subtype}`, "event", null, null, null, group, subtype, payload, `${subtype}_${group}_${l}`);
      }
      counts.orchestration_logs += 1;
      if (agent !== "project_manager" && r.next() < 0.3) {
        q.tokens.run(id, at, agent, agentId, r.int(1_000, 60_000));
        counts.token_usage += 1;
      }
    }
    // The end of a run: the PM's BAZINGA and the validator's verdict (a rejected claim is followed by another).
    for (let c = 0; c < claims; c++) {
      const accepted = c === claims - 1 && status === "completed";
      q.log.run(
        id,
        ts(tick()),
        Math.floor(logs / 8) + 1 + c,
        "project_manager",
        null,
        "Event: pm_bazinga",
        "event",
        null,
        null,
        null,
        "global",
        "pm_bazinga",
        JSON.stringify({ summary: accepted ? "All criteria met" : "Claiming completion", iteration: c + 1 }),
        `pm_${c}`,
      );
      q.log.run(
        id,
        ts(tick()),
        Math.floor(logs / 8) + 1 + c,
        "validator",
        null,
        "Event: validator_verdict",
        "event",
        null,
        null,
        null,
        "global",
        "validator_verdict",
        JSON.stringify({ verdict: accepted ? "ACCEPT" : "REJECT", reason: accepted ? "evidence checked" : "coverage criterion not met" }),
        `val_${c}`,
      );
      counts.orchestration_logs += 2;
    }
    q.state.run(id, ts(tick()), "orchestrator", JSON.stringify({ phase: status === "active" ? "development" : "done", groups_done: groups.length }));
    counts.state_snapshots += 1;
    for (const [k, skill] of ["security_scan", "test_coverage", "lint_check"].entries()) {
      if (k > 0 && r.next() < 0.5) continue;
      q.skill.run(id, ts(tick()), skill, JSON.stringify({ ok: r.next() < 0.8, findings: r.int(0, 5), report: report(1) }), "developer", groups[0]!, 1);
      counts.skill_outputs += 1;
    }
    for (let p = r.int(0, 4); p > 0; p--) {
      const group = r.pick(groups);
      const producer = r.pick(["requirements_engineer", "investigator", "tech_lead"]);
      const pkg = Number(
        q.pkg.run(
          id,
          group,
          r.pick(["research", "failures", "decisions", "handoff", "investigation"]),
          `bazinga/artifacts/${id}/ctx-${p}.md`,
          producer,
          r.pick(["low", "medium", "high", "critical"]),
          `Context for ${requirements}`,
          r.int(500, 9000),
          r.next() < 0.8 ? "group" : "global",
          ts(tick()),
        ).lastInsertRowid,
      );
      counts.context_packages += 1;
      // Zero to three readers (BAZINGA accepts an empty list), some for later iterations.
      const readers = [...READERS].sort(() => r.next() - 0.5).slice(0, r.int(0, 3));
      for (const reader of readers) {
        const iteration = r.next() < 0.8 ? 1 : r.int(2, 3);
        const consumed = r.next() < 0.6 ? ts(tick()) : null;
        q.consumer.run(pkg, reader, consumed, iteration);
        counts.context_package_consumers += 1;
        if (consumed) {
          q.scope.run(`${id}:${group}:${reader}:${iteration}:${pkg}`, id, group, reader, iteration, pkg, consumed);
          counts.consumption_scope += 1;
        }
      }
    }
    if (r.next() < 0.2) {
      const hash = `sig_${r.int(0, 400)}`;
      counts.error_patterns += q.pattern.run(
        hash,
        project,
        JSON.stringify({
          error: r.pick(["TypeError: cannot read properties of undefined", "ECONNREFUSED 127.0.0.1:5432", "AssertionError: expected 200"]),
          file: "src/api/handler.ts",
        }),
        r.pick(REPORT_LINES),
        Math.round(r.next() * 100) / 100,
        r.int(1, 12),
        r.pick(LANGS),
        ts(tick()),
        ts(start),
        90,
      ).changes;
    }
    if (r.next() < 0.15) {
      counts.strategies += q.strategy.run(
        `strat_${project}_${r.int(0, 200)}`,
        project,
        r.pick(["testing", "migrations", "auth", "performance"]),
        r.pick(REPORT_LINES),
        r.int(0, 9),
        r.pick(LANGS),
        r.pick(["express", "django", "gin", "axum"]),
        ts(tick()),
        ts(start),
      ).changes;
    }
    if (status !== "active") q.finish.run(status, ts(tick()), id);
  };
  // A session per transaction batch of 200: the file grows as BAZINGA's would, never one huge transaction.
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) one(i);
  });
  for (let i = 0; i < sessions; i += 200) batch(i, Math.min(sessions, i + 200));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  counts.bytes = fs.statSync(file).size;
  return counts;
}

/** A process run to completion with its wall time and its peak resident memory (VmHWM, as the kernel counts it). */
interface MeasuredRun extends RunResult {
  peakRssMb: number;
  /** The process's CPU time, user + system (GNU time's %U + %S); null without /usr/bin/time. */
  cpuSeconds: number | null;
  /** The 1-minute load average when it started and when it ended (on a shared machine, wall time follows it). */
  load: [number, number];
}

const TIME = "/usr/bin/time";

/**
 * `proofgate <args> --db <ledger>` as the README runs it (node bin/proofgate.mjs: the CLI runs in that
 * one process), its wall time from spawn to exit and its peak RSS: from GNU time's %M (the kernel's
 * ru_maxrss of that process) when /usr/bin/time exists, else the last VmHWM read from /proc while it ran;
 * with GNU time, its CPU time too (what the work costs whatever else the machine is running).
 */
async function measuredProofgate(ledger: string, args: string[]): Promise<MeasuredRun> {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  const argv = [CLI, ...args, "--db", ledger];
  const useTime = fs.existsSync(TIME);
  const rssFile = path.join(path.dirname(ledger), `rss-${process.pid}-${Date.now()}.txt`);
  const loadBefore = os.loadavg()[0]!;
  const started = now();
  const child = useTime
    ? spawn(TIME, ["-f", "%M %U %S", "-o", rssFile, process.execPath, ...argv], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  let polledKb = 0;
  const poll = useTime ? null : setInterval(() => (polledKb = Math.max(polledKb, vmHwmKb(child.pid) ?? 0)), 100);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  const ms = now() - started;
  if (poll) clearInterval(poll);
  let peakKb = polledKb;
  let cpuSeconds: number | null = null;
  if (useTime) {
    const [kb, user, system] = fs.readFileSync(rssFile, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    peakKb = kb!;
    cpuSeconds = user! + system!;
    fs.rmSync(rssFile, { force: true });
  }
  if (code !== 0) throw new Error(`proofgate ${args.join(" ")} exited ${code}: ${stderr.trim() || stdout.trim()}`);
  return { code, stdout, stderr, ms, peakRssMb: Math.round(peakKb / 1024), cpuSeconds, load: [loadBefore, os.loadavg()[0]!] };
}

function vmHwmKb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

interface EntityCounts {
  entity: string;
  read: number;
  imported: number;
  updated: number;
  skipped: number;
}

function entitiesOf(stdout: string): EntityCounts[] {
  const report = JSON.parse(stdout) as { entities?: EntityCounts[] };
  return report.entities ?? [];
}

const summaryOf = (entities: readonly EntityCounts[]) =>
  entities
    .filter((e) => e.imported > 0 || e.updated > 0 || e.skipped > 0)
    .map((e) => `${e.entity} ${e.imported}${e.updated ? ` (+${e.updated} updated)` : ""}${e.skipped ? ` (${e.skipped} skipped)` : ""}`)
    .join(", ");

/**
 * `--follow` on the large file while a writer appends log rows the way BAZINGA does (its own
 * connection, WAL, one row per transaction) at `rate` rows a second for `seconds`: each row's lag
 * from its commit to its appearance in the ledger (polled every 20 ms on a read-only connection), and
 * the backlog (rows committed but not yet in the ledger) second by second.
 */
async function measureFollow(source: string, ledger: string, rate: number, seconds: number) {
  const child = spawn(process.execPath, [CLI, "--json", "import", "bazinga", source, "--follow", "--db", ledger], {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const firstPass = new Promise<number>((resolve, reject) => {
    const started = now();
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes("\n")) resolve(now() - started);
    });
    void exited.then((code) => reject(new Error(`the follower exited (${code}) before its first pass: ${stderr.trim()}`)));
  });
  const firstPassMs = await firstPass;
  const writer = new Database(source);
  writer.pragma("busy_timeout = 5000");
  const ledgerDb = new Database(ledger, { readonly: true });
  const sessionId = writer.prepare("SELECT session_id FROM sessions ORDER BY start_time DESC LIMIT 1").pluck().get() as string;
  const insert = writer.prepare(
    "INSERT INTO orchestration_logs (session_id, iteration, agent_type, agent_id, content, log_type, reasoning_phase, confidence_level, group_id) VALUES (?, 99, ?, ?, ?, ?, ?, ?, 'A')",
  );
  const seenQuery = ledgerDb.prepare("SELECT id, agent_id FROM orchestration_logs WHERE id > ? AND agent_id LIKE 'follow_%' ORDER BY id");
  let lastLedgerId = ledgerDb.prepare("SELECT coalesce(max(id), 0) FROM orchestration_logs").pluck().get() as number;
  const insertedAt = new Map<number, number>();
  const lags: number[] = [];
  const backlog: number[] = [];
  let sent = 0;
  const look = () => {
    for (const row of seenQuery.all(lastLedgerId) as { id: number; agent_id: string }[]) {
      lastLedgerId = row.id;
      const n = Number(row.agent_id.slice("follow_".length));
      const at = insertedAt.get(n);
      if (at !== undefined) {
        lags.push(now() - at);
        insertedAt.delete(n);
      }
    }
  };
  const startedWriting = now();
  const total = rate * seconds;
  while (sent < total || (insertedAt.size > 0 && now() - startedWriting < (seconds + 30) * 1000)) {
    const due = Math.min(total, Math.floor(((now() - startedWriting) / 1000) * rate));
    while (sent < due) {
      const reasoning = sent % 3 === 0;
      insert.run(
        sessionId,
        reasoning ? "tech_lead" : "developer",
        `follow_${sent}`,
        `Follow row ${sent}: ${REPORT_LINES[sent % REPORT_LINES.length]}`,
        reasoning ? "reasoning" : "interaction",
        reasoning ? "approach" : null,
        reasoning ? "medium" : null,
      );
      insertedAt.set(sent, now());
      sent += 1;
    }
    look();
    const second = Math.floor((now() - startedWriting) / 1000);
    if (second < seconds && backlog.length <= second) backlog.push(insertedAt.size);
    await sleep(20);
  }
  const missing = insertedAt.size;
  writer.close();
  ledgerDb.close();
  child.kill("SIGINT");
  const code = await exited;
  if (code !== 0) throw new Error(`the follower exited ${code}: ${stderr.trim()}`);
  return { firstPassMs, lags, backlog, missing, sent };
}

/**
 * Issue 18's large import: a synthesized BAZINGA v19 history (10,000 sessions and about a million log
 * rows by default; `--bazinga-sessions N` for another size), imported by the CLI process into a fresh
 * ledger — wall time and peak RSS — then `proofgate check` on the result, the same import again with
 * nothing new, and `--follow` on the file while a writer appends 100 log rows a second.
 */
export async function measureBazingaImport(ctx: Pick<BenchContext, "quick" | "rec" | "dir">, sessionsWanted?: number): Promise<void> {
  const sessions = sessionsWanted ?? (ctx.quick ? 30 : 10_000);
  const full = sessions >= 10_000;
  const source = path.join(ctx.dir, `bazinga-${sessions}.db`);
  const synthStarted = now();
  const counts = synthesizeBazinga(source, sessions);
  ctx.rec.datasets.bazinga = { ...counts, synthesizedMs: Math.round(now() - synthStarted) };
  console.log(`  BAZINGA source (${(counts.bytes / 1048576).toFixed(0)} MiB): ${JSON.stringify(counts)}`);
  const ledger = path.join(ctx.dir, "import.db");
  const size = `${sessions.toLocaleString("en-US")} sessions / ${counts.orchestration_logs.toLocaleString("en-US")} log rows`;
  const scaleNote = full ? [] : [`(${sessions.toLocaleString("en-US")} sessions: the targets are for 10,000 sessions / 1 million logs)`];

  const first = await measuredProofgate(ledger, ["--json", "import", "bazinga", source]);
  const entities = entitiesOf(first.stdout);
  const skipped = entities.reduce((n, e) => n + e.skipped, 0);
  const check = await proofgate(ledger, ["--json", "check"]).then(
    () => "passed",
    (error: unknown) => `FAILED: ${String(error).slice(0, 300)}`,
  );
  const notes = [
    `synthesized v19 file (${(counts.bytes / 1048576).toFixed(0)} MiB): ${counts.task_groups} task groups, ${counts.success_criteria} criteria, ${counts.orchestration_logs} log rows, ${counts.token_usage} token rows, ${counts.context_packages} context packages; the whole \`proofgate import bazinga\` process (bin/proofgate.mjs) into a fresh ledger`,
    `imported: ${summaryOf(entities)}`,
    `skipped: ${skipped}; proofgate check on the result: ${check}`,
    `CPU time ${first.cpuSeconds === null ? "not measured (no /usr/bin/time)" : `${first.cpuSeconds.toFixed(1)} s`}; load average ${first.load[0].toFixed(1)} at the start, ${first.load[1].toFixed(1)} at the end (${os.cpus().length} cores: above that, other work stretches the wall time)`,
    ...scaleNote,
  ];
  ctx.rec.add({
    id: "import.bazinga",
    measurement: `Import a BAZINGA database of ${size}`,
    unit: "ms",
    summary: summarize([first.ms]),
    target: full ? { stat: "median", op: "<=", value: 120_000 } : null,
    targetText: full ? "≤ 120 s" : "≤ 120 s at 10,000 sessions / 1 M logs",
    notes,
    met: full ? first.ms <= 120_000 && check === "passed" && skipped === 0 : null,
  });
  ctx.rec.add({
    id: "import.bazinga.peak_rss",
    measurement: `Peak RSS of that import (${size})`,
    unit: "MB",
    summary: summarize([first.peakRssMb]),
    target: full ? { stat: "median", op: "<=", value: 400 } : null,
    targetText: full ? "≤ 400 MB" : "≤ 400 MB at 10,000 sessions / 1 M logs",
    notes: [`the CLI process's own peak (${fs.existsSync(TIME) ? "GNU time %M" : "VmHWM polled from /proc"})`, ...scaleNote],
  });

  const again = await measuredProofgate(ledger, ["--json", "import", "bazinga", source]);
  const againEntities = entitiesOf(again.stdout);
  const written = againEntities.reduce((n, e) => n + e.imported + e.updated, 0);
  ctx.rec.add({
    id: "import.bazinga.reimport",
    measurement: `Import the same file again, nothing new (${size})`,
    unit: "ms",
    summary: summarize([again.ms]),
    target: full ? { stat: "median", op: "<=", value: 15_000 } : null,
    targetText: full ? "≤ 15 s" : "≤ 15 s at 10,000 sessions / 1 M logs",
    notes: [`rows written: ${written} (must be 0); peak RSS ${again.peakRssMb} MB`, ...scaleNote],
    met: full ? again.ms <= 15_000 && written === 0 : null,
  });

  const rate = 100;
  const seconds = ctx.quick ? 10 : 30;
  const follow = await measureFollow(source, ledger, rate, seconds);
  const lagSummary = summarize(follow.lags);
  const half = Math.floor(follow.backlog.length / 2);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const earlyBacklog = mean(follow.backlog.slice(0, half));
  const lateBacklog = mean(follow.backlog.slice(half));
  // Keeping up: every row arrives, and the backlog in the second half is no larger than in the first (allowing one poll's worth).
  const keepsUp = follow.missing === 0 && lateBacklog <= earlyBacklog + rate;
  ctx.rec.add({
    id: "import.bazinga.follow_lag",
    measurement: `--follow on that file while BAZINGA appends ${rate} log rows/s for ${seconds} s: insert → in the ledger`,
    unit: "ms",
    summary: lagSummary,
    target: null,
    targetText: "keeps up: every row arrives, the backlog does not grow",
    met: full ? keepsUp : null,
    notes: [
      `${follow.sent} rows written one per transaction on the writer's own WAL connection; ${follow.lags.length} arrived, ${follow.missing} missing`,
      `backlog (rows committed, not yet imported) each second: ${follow.backlog.join(" ")}; mean ${earlyBacklog.toFixed(0)} in the first half, ${lateBacklog.toFixed(0)} in the second — ${keepsUp ? "keeps up" : "falls behind"}`,
      `the follower's first pass over the already-imported file: ${(follow.firstPassMs / 1000).toFixed(1)} s; default --interval (500 ms)`,
      ...scaleNote,
    ],
  });
}
