/**
 * Import a BAZINGA database of many sessions. The file is synthesized here in BAZINGA's own v19
 * schema (taken from the fixture BAZINGA's init_db.py wrote): every session with task groups in
 * each of BAZINGA's statuses, success criteria, interaction / reasoning / event logs (pm_bazinga,
 * validator_verdict), token usage, pm and orchestrator state, a skill output and a context package.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type BenchContext } from "../lib/context";
import { ROOT, proofgate } from "../lib/proc";
import { summarize } from "../lib/stats";

const FIXTURE = path.join(ROOT, "server/services/import/fixtures/bazinga-v19-sample.db");

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
const AGENTS = ["project_manager", "developer", "senior_software_engineer", "qa_expert", "tech_lead", "investigator"];
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
}

/** Write a BAZINGA v19 database of `sessions` sessions, `logsPerSession` log rows each on average. */
export function synthesizeBazinga(file: string, sessions: number, logsPerSession = 100): BazingaCounts {
  // Read the schema from a copy: even a read-only open of a WAL file leaves -shm/-wal files beside it.
  const copy = `${file}.schema-source`;
  fs.copyFileSync(FIXTURE, copy);
  const fixture = new Database(copy, { readonly: true, fileMustExist: true });
  const ddl = fixture.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid").all() as {
    sql: string;
  }[];
  const versions = fixture.prepare("SELECT version, applied_at, description FROM schema_version").all() as {
    version: number;
    applied_at: string;
    description: string;
  }[];
  fixture.close();
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${copy}${suffix}`, { force: true });

  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  for (const { sql } of ddl) db.exec(sql);
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
      "INSERT INTO success_criteria (session_id, criterion, status, actual, evidence, required_for_completion, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
    ),
    log: db.prepare(
      "INSERT INTO orchestration_logs (session_id, timestamp, iteration, agent_type, agent_id, content, log_type, reasoning_phase, confidence_level, references_json, group_id, event_subtype, event_payload, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    tokens: db.prepare("INSERT INTO token_usage (session_id, timestamp, agent_type, agent_id, tokens_estimated) VALUES (?, ?, ?, ?, ?)"),
    state: db.prepare("INSERT INTO state_snapshots (session_id, group_id, timestamp, state_type, state_data) VALUES (?, 'global', ?, ?, ?)"),
    skill: db.prepare(
      "INSERT INTO skill_outputs (session_id, timestamp, skill_name, output_data, agent_type, group_id, iteration) VALUES (?, ?, ?, ?, ?, ?, 1)",
    ),
    pkg: db.prepare(
      "INSERT INTO context_packages (session_id, group_id, package_type, file_path, producer_agent, priority, summary, size_bytes, scope, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'group', ?)",
    ),
    consumer: db.prepare("INSERT INTO context_package_consumers (package_id, agent_type, consumed_at, iteration) VALUES (?, ?, ?, 1)"),
  };
  const counts: BazingaCounts = { sessions, task_groups: 0, success_criteria: 0, orchestration_logs: 0, token_usage: 0, state_snapshots: 0 };
  const day = 86_400_000;
  const origin = Date.UTC(2026, 0, 1);

  const one = (i: number) => {
    const r = random(1_000 + i);
    let clock = origin + r.int(0, 300) * day + r.int(0, day);
    const tick = () => (clock += r.int(1, 90) * 1000);
    const start = clock;
    const stamp = new Date(start).toISOString().replace(/[-:]/g, "").slice(0, 15).replace("T", "_");
    const id = `bazinga_${stamp}_${String(i).padStart(4, "0")}`;
    const status = r.next() < 0.6 ? "completed" : r.next() < 0.6 ? "failed" : "active";
    const mode = r.next() < 0.7 ? "parallel" : "simple";
    const requirements = `${r.pick(REQUIREMENTS)} (#${i})`;

    const groups = Array.from({ length: r.int(2, 6) }, (_, g) => (mode === "parallel" ? String.fromCharCode(65 + g) : `group_${String.fromCharCode(97 + g)}`));
    const criteria = [...CRITERIA].sort(() => r.next() - 0.5).slice(0, r.int(2, 4));
    const logs = Math.max(5, Math.round(logsPerSession * (0.5 + r.next())));

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
        task_groups: groups.map((g) => ({ id: g })),
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
        at,
        at,
      );
      counts.success_criteria += 1;
    }
    for (let l = 0; l < logs; l++) {
      const agent = r.pick(AGENTS);
      const agentId = `${agent}_${r.int(1, 3)}`;
      const iteration = Math.floor(l / 6) + 1;
      const at = ts(tick());
      const kind = r.next();
      if (kind < 0.65) {
        q.log.run(
          id,
          at,
          iteration,
          agent,
          agentId,
          `${agent} iteration ${iteration}: ${r.pick(SAYINGS)}`,
          "interaction",
          null,
          null,
          null,
          null,
          null,
          null,
          null,
        );
      } else if (kind < 0.95) {
        const phase = r.pick(PHASES);
        const refs = r.next() < 0.4 ? JSON.stringify([`src/${r.pick(["auth", "api", "db"])}/${r.pick(["index", "handler", "schema"])}.ts`]) : null;
        q.log.run(
          id,
          at,
          iteration,
          agent,
          agentId,
          `## ${phase}\n${r.pick(SAYINGS)}. Next: ${r.pick(SAYINGS).toLowerCase()}.`,
          "reasoning",
          phase,
          r.pick(CONFIDENCE),
          refs,
          r.pick(groups),
          null,
          null,
          null,
        );
      } else {
        const pm = r.next() < 0.5;
        const payload = pm
          ? { summary: r.pick(["All criteria met", "Two criteria still pending"]), iteration }
          : { verdict: r.pick(["ACCEPT", "REJECT"]), reason: "checked" };
        q.log.run(
          id,
          at,
          iteration,
          pm ? "project_manager" : "validator",
          null,
          `Event: ${pm ? "pm_bazinga" : "validator_verdict"}`,
          "event",
          null,
          null,
          null,
          "global",
          pm ? "pm_bazinga" : "validator_verdict",
          JSON.stringify(payload),
          `${pm ? "pm" : "val"}_${l}`,
        );
      }
      counts.orchestration_logs += 1;
      if (l % 10 === 0) {
        q.tokens.run(id, at, agent, agentId, r.int(1_000, 60_000));
        counts.token_usage += 1;
      }
    }
    q.state.run(id, ts(tick()), "orchestrator", JSON.stringify({ phase: status === "active" ? "development" : "done" }));
    counts.state_snapshots += 1;
    q.skill.run(
      id,
      ts(tick()),
      r.pick(["security_scan", "test_coverage", "lint_check"]),
      JSON.stringify({ ok: true, findings: r.int(0, 5) }),
      "developer",
      groups[0]!,
    );
    const pkg = Number(
      q.pkg.run(
        id,
        groups[0]!,
        r.pick(["research", "failures", "decisions", "handoff", "investigation"]),
        `bazinga/artifacts/${id}/ctx-0.md`,
        "requirements_engineer",
        r.pick(["low", "medium", "high", "critical"]),
        `Context for ${requirements}`,
        r.int(500, 9000),
        ts(tick()),
      ).lastInsertRowid,
    );
    q.consumer.run(pkg, "developer", r.next() < 0.5 ? ts(tick()) : null);
    q.consumer.run(pkg, "qa_expert", null);
    if (status !== "active") {
      db.prepare("UPDATE sessions SET status = ?, end_time = ? WHERE session_id = ?").run(status, new Date(tick()).toISOString().replace("Z", ""), id);
    }
  };
  db.transaction(() => {
    for (let i = 0; i < sessions; i++) one(i);
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return counts;
}

export async function measureBazingaImport(ctx: BenchContext): Promise<void> {
  const sessions = ctx.quick ? 30 : 1000;
  const source = path.join(ctx.dir, `bazinga-${sessions}.db`);
  const counts = synthesizeBazinga(source, sessions);
  ctx.rec.datasets.bazinga = counts;
  console.log(`  BAZINGA source: ${JSON.stringify(counts)}`);
  const times: number[] = [];
  let summary = "";
  // One import per run: at 1,000 sessions a repeat costs minutes of a shared machine.
  for (let r = 0; r < 1; r++) {
    const ledger = path.join(ctx.dir, `import-${r}.db`);
    const run = await proofgate(ledger, ["--json", "import", "bazinga", source]);
    times.push(run.ms);
    summary = run.stdout;
  }
  let imported = "";
  try {
    const report = JSON.parse(summary) as { entities?: { entity: string; imported: number; skipped: number }[] };
    imported = (report.entities ?? [])
      .filter((e) => e.imported > 0 || e.skipped > 0)
      .map((e) => `${e.entity} ${e.imported}${e.skipped ? ` (${e.skipped} skipped)` : ""}`)
      .join(", ");
  } catch {
    imported = "";
  }
  ctx.rec.add({
    id: "import.bazinga",
    measurement: `Import a BAZINGA database of ${sessions.toLocaleString("en-US")} sessions`,
    unit: "ms",
    summary: summarize(times),
    target: ctx.quick ? null : { stat: "median", op: "<=", value: 60_000 },
    targetText: ctx.quick ? "(quick: 30 sessions; target is for 1,000)" : "under 60 s",
    notes: [
      `synthesized v19 file: ${counts.task_groups} task groups, ${counts.success_criteria} criteria, ${counts.orchestration_logs} log rows, ${counts.token_usage} token rows; whole \`proofgate import bazinga\` process into a fresh ledger`,
      ...(imported ? [`imported: ${imported}`] : []),
    ],
  });
}
