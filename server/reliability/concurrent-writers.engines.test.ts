/**
 * On each engine (a SQLite file; a PostgreSQL database, issue 21): eight writer processes on one ledger — four running `proofgate` in local mode (each call
 * its own connection), four calling a running API server over HTTP with role tokens — make
 * thousands of moves, criteria updates and log writes, with deliberate races on shared tasks
 * (several verifiers, or verifiers and a blocker, on one claimed task; several claimants on one
 * pending task; two leads approving a blocked task's reset while an orchestrator and an agent
 * request one; bundled
 * `bin/proofgate.mjs` processes verifying one task). A backup is taken mid-run (SQLite: `proofgate backup`;
 * PostgreSQL: `proofgate copy` into a file, its one snapshot). Afterwards: no caller saw the database
 * locked, every acknowledged write is in the ledger, every race has exactly one winner and its losers
 * got a conflict, and the invariant checker finds the ledger (and the backup) clean.
 */
// flake-risks time: durations printed in the test's report line (throughput, start-up); nothing asserts on them
// flake-risks wait: the poll interval of a loop that awaits a condition
import { mapInOrder } from "@/server/services/in-order";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { ACTORS, BLOCKED, callerFor } from "@/test/support/api-helpers";
import { operatorActor } from "@/server/domain/actors";
import { createToken } from "@/server/services/admin/tokens";
import { checkLedger } from "@/server/services/check/run";
import type { Call, CallResult, FromWriter, ToWriter } from "@/test/support/writer";
import { describeEngines, sharedLedgerFactory } from "@/test/support/engines";
import { rowsLikeSqlite } from "@/test/support/rows";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const WRITER = path.join(ROOT, "test", "support", "writer.ts");
const SERVER = path.join(ROOT, "test", "support", "trpc-server.ts");
const BIN = path.join(ROOT, "bin", "proofgate.mjs");

const WRITERS = 8;
const LOCAL = 4;
/**
 * Tasks each writer walks through create → claim → verify → complete, with criteria and logs (ten
 * calls a task). PROOFGATE_WRITERS_SCALE=N multiplies it for a longer run.
 */
const TASKS_PER_WRITER = 16 * Math.max(1, Number(process.env.PROOFGATE_WRITERS_SCALE ?? 1) || 1);
const RACES = { verifiers: 10, claimants: 10, resets: 5, processes: 3 };

const ledger = sharedLedgerFactory();
const children: ChildProcess[] = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-writers-"));
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A child process run by Node with tsx, so it runs the sources under test. */
function tsx(script: string, args: string[], ipc: boolean): ChildProcess {
  const env = { ...process.env };
  for (const name of ["PROOFGATE_DB", "PROOFGATE_DATABASE_URL", "PROOFGATE_URL", "PROOFGATE_TOKEN"]) delete env[name];
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: ROOT,
    env,
    stdio: ipc ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

function collect(child: ChildProcess): { text: () => string } {
  let text = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  return { text: () => text };
}

interface Writer {
  index: number;
  remote: boolean;
  child: ChildProcess;
  send(message: ToWriter): void;
  next<T extends FromWriter["type"]>(type: T): Promise<Extract<FromWriter, { type: T }>>;
}

function startWriter(index: number, remote: boolean): Writer {
  const child = tsx(WRITER, [], true);
  const output = collect(child);
  const waiting = new Map<string, ((message: FromWriter) => void)[]>();
  child.on("message", (message: FromWriter) => waiting.get(message.type)?.shift()?.(message));
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) throw new Error(`writer ${index} exited ${code}: ${output.text()}`);
  });
  return {
    index,
    remote,
    child,
    send: (message) => child.send(message),
    next: (type) =>
      new Promise((resolve) => {
        const list = waiting.get(type) ?? [];
        list.push(resolve as (message: FromWriter) => void);
        waiting.set(type, list);
      }),
  };
}

/** Spawn the bundled executable (built by vitest's global setup), as an agent's shell would. */
function bin(args: string[]): Promise<CallResult & { ms: number }> {
  const started = Date.now();
  const env = { ...process.env };
  for (const name of ["PROOFGATE_DB", "PROOFGATE_DATABASE_URL", "PROOFGATE_URL", "PROOFGATE_TOKEN"]) delete env[name];
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code) => resolve({ id: args.join(" "), code: code ?? -1, stdout, stderr, ms: Date.now() - started })));
}

const ruleOf = (result: CallResult): string | undefined => {
  try {
    return (JSON.parse(result.stderr) as { error?: { rule?: string } }).error?.rule;
  } catch {
    return undefined;
  }
};

/** A count or sum as a number (PostgreSQL returns bigint as text). */
const num = (value: unknown) => (value === null ? null : Number(value));

describeEngines("eight concurrent writers on one ledger", (engine) => {
  // A hang guard: every write is serialised by the writer lock, so the run grows with a loaded machine (160–240 s seen at load 19).
  it("lose nothing, never see the database locked, give every race one winner, and leave a clean ledger", { timeout: 600_000 }, async () => {
    const started = Date.now();
    const { db, target } = await ledger(engine);
    // How every process names the ledger: a file with --db, a database with --database-url.
    const at = engine === "sqlite" ? ["--db", target] : ["--database-url", target];
    const backup = path.join(dir, `backup-${engine}.db`);
    const operator = { db, actor: operatorActor("setup") };
    const tokens = Object.fromEntries(
      await mapInOrder(["agent", "verifier", "orchestrator", "lead"] as const, async (role) => [
        role,
        (await createToken(operator, { name: `${role}-bot`, role })).token,
      ]),
    ) as Record<"agent" | "verifier" | "orchestrator" | "lead", string>;

    // The shared tasks the writers race on, each left at a state every racer's move is legal from.
    const setup = callerFor(db, operatorActor("developer_0"));
    const judge = callerFor(db, ACTORS.verifier);
    await callerFor(db, ACTORS.orchestrator).session.create({ id: "race" });
    const R = { sessionId: "race" };
    const version = async (key: string) =>
      (await rowsLikeSqlite<{ version: number }>(db, "SELECT version FROM tasks WHERE session_id = 'race' AND key = ?", key))[0]!.version;
    for (let r = 0; r < RACES.verifiers; r++)
      await setup.task.create({ ...R, key: `v${r}`, title: "verify race" }).then(() => setup.task.claim({ ...R, key: `v${r}` }));
    for (let r = 0; r < RACES.processes; r++)
      await setup.task.create({ ...R, key: `p${r}`, title: "process race" }).then(() => setup.task.claim({ ...R, key: `p${r}` }));
    for (let r = 0; r < RACES.claimants; r++) await setup.task.create({ ...R, key: `c${r}`, title: "claim race" });
    for (let r = 0; r < RACES.resets; r++) {
      await setup.task.create({ ...R, key: `r${r}`, title: "reset race" });
      await setup.task.claim({ ...R, key: `r${r}` });
      await judge.task.block({ ...R, key: `r${r}`, failures: ["fails"], proofpack: BLOCKED });
    }
    const setupDone = num((await rowsLikeSqlite<{ n: number }>(db, "SELECT max(id) AS n FROM task_transitions"))[0]!.n)!;

    const server = tsx(SERVER, [target], false);
    const serverOutput = collect(server);
    const writers = Array.from({ length: WRITERS }, (_, i) => startWriter(i, i >= LOCAL));
    await Promise.all(writers.map((w) => w.next("ready")));
    while (!/listening \d+/.test(serverOutput.text())) await new Promise((resolve) => setTimeout(resolve, 50));
    const url = `http://127.0.0.1:${/listening (\d+)/.exec(serverOutput.text())![1]}`;
    const ready = Date.now();

    /** A call as `role` under `label`: local mode acts as the operator, remote mode with the role's token. */
    const args = (w: Writer, role: keyof typeof tokens, label: string, ...command: string[]): string[] =>
      w.remote ? ["--url", url, "--token", tokens[role], "--json", "--agent-id", label, ...command] : [...at, "--json", "--agent-id", label, ...command];

    const loads = writers.map((w) => {
      const s = `w${w.index}`;
      const calls: Call[] = [
        { id: `${s} session`, args: args(w, "orchestrator", "orchestrator", "create-session", s, "parallel", `load ${s}`) },
        { id: `${s} criteria`, args: args(w, "orchestrator", "pm", "save-success-criteria", s, '["c0","c1","c2"]') },
      ];
      for (let t = 0; t < TASKS_PER_WRITER; t++) {
        const c = `c${t % 3}`;
        const step = (name: string, role: keyof typeof tokens, label: string, ...command: string[]) =>
          calls.push({ id: `${s} t${t} ${name}`, args: args(w, role, label, ...command) });
        step("create", "orchestrator", "orchestrator", "create-task-group", `t${t}`, s, `Task ${t}`);
        step("claim", "agent", `dev_${s}`, "claim", s, `t${t}`, "--evidence", `artifacts/${s}/t${t}.txt`);
        step("criterion met", "orchestrator", "pm", "update-success-criterion", s, c, "--status", "met", "--evidence", `ev-${s}-t${t}-a`);
        step("log 1", "agent", `dev_${s}`, "log-interaction", s, "developer", `msg ${s} t${t} 1`);
        step("verify", "verifier", `qa_${s}`, "verify", s, `t${t}`, "--check", "tests=pass");
        step("log 2", "agent", `qa_${s}`, "log-interaction", s, "qa_expert", `msg ${s} t${t} 2`);
        step("complete", "orchestrator", "orchestrator", "complete", s, `t${t}`);
        step("criterion pending", "orchestrator", "pm", "update-success-criterion", s, c, "--status", "pending", "--evidence", `ev-${s}-t${t}-b`);
        step("tokens", "agent", `dev_${s}`, "log-tokens", s, "developer", "100");
        step("log 3", "orchestrator", "orchestrator", "log-interaction", s, "orchestrator", `msg ${s} t${t} 3`);
      }
      w.send({ type: "load", calls });
      return w.next("loaded");
    });

    /** Fire each racer's call at once (each writer runs it as soon as its current call ends). */
    async function race(name: string, racers: [Writer, string[]][]): Promise<{ name: string; results: CallResult[] }> {
      const results = racers.map(([w, argv]) => {
        const answer = w.next("raced");
        w.send({ type: "race", call: { id: `${name} by w${w.index}`, args: argv } });
        return answer.then((m) => m.result);
      });
      return { name, results: await Promise.all(results) };
    }

    const races: { name: string; key: string; results: CallResult[]; labels: string[] }[] = [];
    const labelOf = (argv: string[]) => argv[argv.indexOf("--agent-id") + 1]!;
    let backupResult: CallResult | undefined;
    for (let r = 0; r < Math.max(RACES.verifiers, RACES.claimants, RACES.resets); r++) {
      if (r < RACES.verifiers) {
        const key = `v${r}`;
        const v = String(await version(key));
        // Six verify, two block: several verifiers on one claimed task, and a verifier against a blocker.
        const racers = writers.map((w): [Writer, string[]] =>
          w.index % 4 === 3
            ? [w, args(w, "verifier", `blocker_w${w.index}`, "block", "race", key, "--failures", '["flaky"]', "--expected-version", v)]
            : [w, args(w, "verifier", `qa_race_w${w.index}`, "verify", "race", key, "--check", "tests=pass", "--expected-version", v)],
        );
        races.push({ ...(await race(`verify ${key}`, racers)), key, labels: racers.map(([, argv]) => labelOf(argv)) });
      }
      if (r < RACES.claimants) {
        const key = `c${r}`;
        const v = String(await version(key));
        const racers = writers.map((w): [Writer, string[]] => [w, args(w, "agent", `claimant_w${w.index}`, "claim", "race", key, "--expected-version", v)]);
        races.push({ ...(await race(`claim ${key}`, racers)), key, labels: racers.map(([, argv]) => labelOf(argv)) });
      }
      if (r < RACES.resets) {
        const key = `r${r}`;
        const v = String(await version(key));
        const racers: [Writer, string[]][] = [
          [writers[0]!, args(writers[0]!, "lead", "lead_local", "approve-reset", "race", key, "--reason", "go again", "--expected-version", v)],
          [writers[4]!, args(writers[4]!, "lead", "lead_remote", "approve-reset", "race", key, "--reason", "go again", "--expected-version", v)],
          [
            writers[5]!,
            args(writers[5]!, "orchestrator", "orchestrator_remote", "request-reset", "race", key, "--reason", "fixed, please reset", "--expected-version", v),
          ],
          [
            writers[1]!,
            args(writers[1]!, "agent", "developer_local", "request-reset", "race", key, "--reason", "fixed, please reset", "--expected-version", v),
          ],
        ];
        races.push({ ...(await race(`reset ${key}`, racers)), key, labels: racers.map(([, argv]) => labelOf(argv)) });
      }
      // Halfway: an online backup by the bundled executable, while the writers keep writing.
      if (r === 4)
        backupResult = await bin(engine === "sqlite" ? ["--db", target, "--json", "backup", backup] : ["--json", "copy", "--from", target, "--to", backup]);
    }
    // Whole processes of the bundled executable racing to verify one claimed task.
    for (let r = 0; r < RACES.processes; r++) {
      const key = `p${r}`;
      const v = String(await version(key));
      const labels = [0, 1, 2].map((k) => `qa_bin_${k}`);
      const results = await Promise.all(
        labels.map((label) => bin([...at, "--json", "--agent-id", label, "verify", "race", key, "--check", "tests=pass", "--expected-version", v])),
      );
      races.push({ name: `processes verify ${key}`, key, results, labels });
    }
    const loaded = (await Promise.all(loads)).flatMap((m) => m.results);
    const finished = Date.now();
    for (const w of writers) w.send({ type: "exit" });
    server.kill("SIGTERM");

    // Nobody saw the database locked: not a writer, not the server, not the backup.
    const everything = [...loaded, ...races.flatMap((r) => r.results), ...(backupResult ? [backupResult] : [])];
    const locked = /SQLITE_BUSY|database is locked|lock timeout|deadlock|could not serialize/i;
    expect(everything.filter((r) => locked.test(r.stderr + r.stdout)).map((r) => r.id)).toEqual([]);
    expect(serverOutput.text()).not.toMatch(new RegExp(`${locked.source}|failed`, "i"));

    // Every write of the load was acknowledged...
    expect(loaded.filter((r) => r.code !== 0).map((r) => `${r.id}: ${r.code} ${r.stderr}`)).toEqual([]);
    expect(loaded).toHaveLength(WRITERS * (2 + 10 * TASKS_PER_WRITER));
    // ...and every acknowledged write is in the ledger.
    const one = async (text: string, ...params: unknown[]) => num(Object.values((await rowsLikeSqlite(db, text, ...params))[0]!)[0]);
    const column = async (text: string, ...params: unknown[]) =>
      (await rowsLikeSqlite<Record<string, string>>(db, text, ...params)).map((row) => Object.values(row)[0]!);
    for (const w of writers) {
      const s = `w${w.index}`;
      expect(
        await one("SELECT count(*) FROM tasks WHERE session_id = ? AND status = 'completed' AND verification = 'verified' AND verified_by = ?", s, `qa_${s}`),
        s,
      ).toBe(TASKS_PER_WRITER);
      expect(await one("SELECT count(*) FROM task_transitions WHERE session_id = ?", s), s).toBe(TASKS_PER_WRITER * 4);
      const evidence = new Set(await column("SELECT evidence FROM criterion_updates WHERE session_id = ? AND kind = 'claim'", s));
      const logs = new Set(await column("SELECT content FROM orchestration_logs WHERE session_id = ?", s));
      for (let t = 0; t < TASKS_PER_WRITER; t++) {
        for (const e of ["a", "b"]) expect(evidence.has(`ev-${s}-t${t}-${e}`), `ev-${s}-t${t}-${e}`).toBe(true);
        for (const k of [1, 2, 3]) expect(logs.has(`msg ${s} t${t} ${k}`), `msg ${s} t${t} ${k}`).toBe(true);
      }
      expect(evidence.size).toBe(TASKS_PER_WRITER * 2);
      expect(logs.size).toBe(TASKS_PER_WRITER * 3);
      const [tokenRow] = await rowsLikeSqlite<{ n: unknown; total: unknown }>(
        db,
        "SELECT count(*) AS n, sum(tokens_estimated) AS total FROM token_usage WHERE session_id = ?",
        s,
      );
      expect({ n: num(tokenRow!.n), total: num(tokenRow!.total) }).toEqual({ n: TASKS_PER_WRITER, total: 100 * TASKS_PER_WRITER });
    }

    // Every race: exactly one winner, whose move is the one the task shows; every loser a conflict.
    for (const { name, key, results, labels } of races) {
      const winners = results.filter((r) => r.code === 0);
      expect(
        winners.map((r) => r.id),
        name,
      ).toHaveLength(1);
      const losers = results.filter((r) => r.code !== 0);
      expect(
        losers.map((r) => [r.code, ruleOf(r)]),
        name,
      ).toEqual(losers.map(() => [1, "task.version_conflict"]));
      const winner = labels[results.indexOf(winners[0]!)]!;
      const [task] = await rowsLikeSqlite<Record<string, unknown>>(db, "SELECT * FROM tasks WHERE session_id = 'race' AND key = ?", key);
      // One move after the set-up, by the winner: the losers left no trace.
      expect(await column("SELECT actor FROM task_transitions WHERE task_id = ? AND id > ?", task!.id, setupDone), name).toEqual([winner]);
      if (key.startsWith("v") || key.startsWith("p")) expect(winner.startsWith("blocker") ? task!.blocked_by : task!.verified_by, name).toBe(winner);
      if (key.startsWith("c")) expect(task!.claimed_by, name).toBe(winner);
      if (key.startsWith("r")) expect([task!.status, task!.reset_requested], name).toEqual(winner.startsWith("lead") ? ["pending", 0] : ["blocked", 1]);
    }

    // The ledger, and the backup taken while all this ran, keep every invariant.
    expect(backupResult, backupResult?.stderr).toMatchObject({ code: 0 });
    if (engine === "sqlite") expect(JSON.parse(backupResult!.stdout)).toMatchObject({ integrity: "ok" });
    const report = await checkLedger(db);
    expect(report.findings).toEqual([]);
    const copy = openDatabase(backup, { readonly: true });
    const backupReport = await checkLedger(copy);
    const backupTasks = copy.$client.prepare("SELECT count(*) FROM tasks").pluck().get() as number;
    copy.$client.close();
    expect(backupReport.findings).toEqual([]);
    expect(backupTasks).toBeGreaterThan(0);

    const raceCalls = races.reduce((n, r) => n + r.results.length, 0);
    console.log(
      `concurrent writers on ${engine}: ${WRITERS} writers (${LOCAL} local CLI, ${WRITERS - LOCAL} HTTP) + ${RACES.processes * 3} bundled CLI processes; ` +
        `${loaded.length} load calls + ${raceCalls} race calls in ${((finished - ready) / 1000).toFixed(1)} s (${Math.round((loaded.length + raceCalls) / ((finished - ready) / 1000))}/s); ` +
        `${races.length} races, ${races.length} winners, ${raceCalls - races.length} conflicts; failures 0; locked 0; backup mid-run: ${backupTasks} tasks, clean; ` +
        `start-up ${((ready - started) / 1000).toFixed(1)} s`,
    );
  });
});
