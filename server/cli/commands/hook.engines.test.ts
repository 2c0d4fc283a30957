/**
 * `proofgate hook claude-code` as Claude Code runs it: the built executable, the hook's JSON on
 * stdin, the answer on stdout and in the exit code (exact, as Claude Code reads them), on a SQLite
 * file and on a PostgreSQL database.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { type Run, proofgate } from "./hook-test-support";
import { type Ledger, closeReaders, ledgerRows, ledgerWorkspace, removeWorkspaces } from "@/test/support/cli-harness";
import { describeEngines, describeSharedPath, pgAdminUrl } from "@/test/support/engines";
import { databaseUrl } from "@/test/support/pg-cluster";
import { LEAKED, RUNTIME_ID, postToolUse, postToolUseFailure, secretBash, sessionStart, stop, subagentStop } from "@/server/services/runtime/test-payloads";

vi.setConfig({ testTimeout: 120_000 });

const dirs: string[] = [];
afterEach(closeReaders);
afterAll(() => {
  dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true }));
  removeWorkspaces();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-hook-"));
  dirs.push(dir);
  return dir;
}

const hook = (db: Ledger, payload: unknown, ...flags: string[]) =>
  proofgate(["hook", "claude-code", ...db.flag, ...flags], { stdin: typeof payload === "string" ? payload : JSON.stringify(payload) });

const query = ledgerRows;

const ALLOW: Run = { code: 0, stdout: "", stderr: "" };

describeSharedPath("the Claude Code hook", (engine) => {
  /** A migrated ledger (`proofgate migrate`: a PostgreSQL clone of the template has nothing left to apply). */
  async function ledger(): Promise<Ledger> {
    const db = await ledgerWorkspace(engine);
    expect((await proofgate([...db.flag, "migrate"])).code).toBe(0);
    return db;
  }

  describe("proofgate hook claude-code (local mode)", () => {
    it("SessionStart, with each source: exports the runtime session for later commands and answers nothing", async () => {
      const db = await ledger();
      const envFile = path.join(tempDir(), "claude-env");
      for (const source of ["startup", "resume", "clear", "compact"] as const) {
        const run = await proofgate(["hook", "claude-code", ...db.flag], { stdin: JSON.stringify(sessionStart(source)), env: { CLAUDE_ENV_FILE: envFile } });
        expect(run).toEqual(ALLOW);
      }
      expect(fs.readFileSync(envFile, "utf8")).toBe(`export PROOFGATE_RUNTIME_SESSION=${RUNTIME_ID}\n`.repeat(4));
      expect(await query(db, "select source from runtime_sessions")).toEqual([{ source: "compact" }]);
    });

    it("holds a BAZINGA session's stop, created through the CLI inside the runtime session, until its criteria are met", async () => {
      const db = await ledger();
      const envFile = path.join(tempDir(), "claude-env");
      expect((await proofgate(["hook", "claude-code", ...db.flag], { stdin: JSON.stringify(sessionStart()), env: { CLAUDE_ENV_FILE: envFile } })).code).toBe(0);
      // What Claude Code does with the file: every later Bash command of the session sources it.
      const runtimeEnv = { PROOFGATE_RUNTIME_SESSION: /PROOFGATE_RUNTIME_SESSION=(\S+)/.exec(fs.readFileSync(envFile, "utf8"))![1] };
      const bazinga = (...args: string[]) => proofgate([...db.flag, ...args], { env: runtimeEnv });
      expect((await bazinga("create-session", "bazinga_20250112_143022", "simple", "Add JWT authentication")).code).toBe(0);
      expect((await bazinga("save-success-criteria", "bazinga_20250112_143022", '[{"criterion":"All tests passing"}]')).code).toBe(0);

      const held = await hook(db, stop(false));
      expect(held.code).toBe(0);
      expect(held.stderr).toBe("");
      const output = JSON.parse(held.stdout) as Record<string, string>;
      expect(Object.keys(output)).toEqual(["decision", "reason"]);
      expect(output.decision).toBe("block");
      expect(output.reason).toContain(
        "Proofgate is holding this stop (1 of at most 3 in a row): the completion gate rejects ledger session bazinga_20250112_143022.",
      );
      expect(output.reason).toContain("fix: meet it, then: proofgate update-success-criterion bazinga_20250112_143022 'All tests passing' --status met");
      expect(held.stdout.endsWith("}\n")).toBe(true);

      // The agent runs the fix it was given, in the runtime session; the next stop goes through.
      expect(
        (
          await bazinga(
            "update-success-criterion",
            "bazinga_20250112_143022",
            "All tests passing",
            "--status",
            "met",
            "--actual",
            "42/42",
            "--evidence",
            "npm test",
          )
        ).code,
      ).toBe(0);
      expect(await hook(db, stop(true))).toEqual(ALLOW);
      expect(await query(db, "select type from events where type like 'runtime.%' order by id")).toEqual([
        { type: "runtime.session_started" },
        { type: "runtime.stop_held" },
        { type: "runtime.stop_released" },
      ]);
      expect(await query(db, "select count(*) as n from completion_checks")).toEqual([{ n: 0 }]);
    });

    it("create-session --runtime-session links the runtime session without PROOFGATE_RUNTIME_SESSION: its stop is then held by that session's gate", async () => {
      const db = await ledger();
      // Outside the runtime: no environment variable, the link named on the command line.
      const created = await proofgate([...db.flag, "create-session", "s1", "simple", "x", "--runtime-session", `claude-code:${RUNTIME_ID}`]);
      expect(created.code).toBe(0);
      expect(
        await query(db, "select r.runtime, r.external_id, l.session_id from runtime_session_links l join runtime_sessions r on r.id = l.runtime_session_id"),
      ).toEqual([{ runtime: "claude-code", external_id: RUNTIME_ID, session_id: "s1" }]);
      expect((await proofgate([...db.flag, "save-success-criteria", "s1", '[{"criterion":"All tests passing"}]'])).code).toBe(0);
      const held = await hook(db, stop(false));
      expect(JSON.parse(held.stdout)).toMatchObject({ decision: "block", reason: expect.stringContaining("the completion gate rejects ledger session s1") });
    });

    it("create-session --runtime-session: a malformed value, or one that contradicts PROOFGATE_RUNTIME_SESSION, is refused naming the option, writing nothing", async () => {
      const db = await ledger();
      for (const value of [RUNTIME_ID, `codex-cli:${RUNTIME_ID}`, "claude-code:", "claude-code:a b"]) {
        const refused = await proofgate([...db.flag, "create-session", "s1", "simple", "x", "--runtime-session", value]);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain("--runtime-session: must be <runtime>:<session id> with the runtime one of claude-code");
      }
      const contradicting = await proofgate([...db.flag, "create-session", "s1", "simple", "x", "--runtime-session", "claude-code:other-session"], {
        env: { PROOFGATE_RUNTIME_SESSION: RUNTIME_ID },
      });
      expect(contradicting.code).toBe(2);
      expect(contradicting.stderr).toContain(
        `runtimeSession: names claude-code:other-session, but the call comes from inside runtime session claude-code:${RUNTIME_ID}`,
      );
      expect(
        await query(
          db,
          "select (select count(*) from sessions) as sessions, (select count(*) from runtime_sessions) as runtimes, (select count(*) from events) as events",
        ),
      ).toEqual([{ sessions: 0, runtimes: 0, events: 0 }]);
      // The same session named both ways is one link.
      const both = await proofgate([...db.flag, "create-session", "s1", "simple", "x", "--runtime-session", `claude-code:${RUNTIME_ID}`], {
        env: { PROOFGATE_RUNTIME_SESSION: RUNTIME_ID },
      });
      expect(both.code).toBe(0);
      expect(await query(db, "select count(*) as n from runtime_session_links")).toEqual([{ n: 1 }]);
    });

    it("lets a stop through after --max-blocks held in a row, saying so to the user, and records runtime.stop_unverified", async () => {
      const db = await ledger();
      await proofgate([...db.flag, "create-session", "s1", "simple", "x"], { env: { PROOFGATE_RUNTIME_SESSION: RUNTIME_ID } });
      expect(JSON.parse((await hook(db, stop(false), "--max-blocks", "2")).stdout).decision).toBe("block");
      expect(JSON.parse((await hook(db, stop(true), "--max-blocks", "2")).stdout).decision).toBe("block");
      const through = await hook(db, stop(true), "--max-blocks", "2");
      expect(through.code).toBe(0);
      expect(JSON.parse(through.stdout)).toEqual({
        systemMessage: expect.stringContaining("Proofgate let this stop through after 2 held stops in a row, with the completion gate still rejecting s1"),
      });
      expect(await query(db, "select type, session_id from events where type = 'runtime.stop_unverified'")).toEqual([
        { type: "runtime.stop_unverified", session_id: "s1" },
      ]);
      // A subagent's stop is held on its own count.
      expect(JSON.parse((await hook(db, subagentStop(false))).stdout).decision).toBe("block");
    });

    it("records tool calls redacted (PostToolUse, PostToolUseFailure), answering nothing", async () => {
      const db = await ledger();
      await proofgate([...db.flag, "create-session", "s1", "simple", "x"], { env: { PROOFGATE_RUNTIME_SESSION: RUNTIME_ID } });
      expect(await hook(db, secretBash())).toEqual(ALLOW);
      expect(await hook(db, postToolUse("Write", { file_path: "/app/.env", content: `password=${LEAKED[3]}` }, { type: "create" }))).toEqual(ALLOW);
      expect(await hook(db, postToolUseFailure("Bash", { command: "npm test" }, "exit 1"))).toEqual(ALLOW);
      const logs = await query<{ content: string; event_payload: string }>(
        db,
        "select content, event_payload from orchestration_logs where session_id = 's1' order by id",
      );
      expect(logs.map((l) => l.content)).toEqual([expect.stringMatching(/^Bash: curl/), "Write: /app/.env", "Bash (failed): npm test"]);
      for (const secret of LEAKED) expect(JSON.stringify(logs)).not.toContain(secret);
    });

    it("answers nothing and writes nothing for a runtime session no ledger session is linked to", async () => {
      const db = await ledger();
      expect(await hook(db, stop())).toEqual(ALLOW);
      expect(await hook(db, secretBash())).toEqual(ALLOW);
      expect(await query(db, "select count(*) as n from events")).toEqual([{ n: 0 }]);
    });
  });

  describe("create-session inside a runtime session", () => {
    it("refuses a PROOFGATE_RUNTIME_SESSION that is not an id, naming it, creating nothing", async () => {
      const db = await ledger();
      const run = await proofgate([...db.flag, "create-session", "s1", "simple", "x"], { env: { PROOFGATE_RUNTIME_SESSION: "not an id; rm -rf /" } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("PROOFGATE_RUNTIME_SESSION: may contain only letters, digits and . _ : -");
      expect(await query(db, "select count(*) as n from sessions")).toEqual([{ n: 0 }]);
    });
  });

  describe("proofgate hook claude-code when Proofgate cannot answer", () => {
    it("fails open on malformed input, naming the problem on stderr, writing nothing", async () => {
      const db = await ledger();
      const notJson = await hook(db, "{not json");
      expect(notJson.code).toBe(0);
      expect(notJson.stdout).toBe("");
      expect(notJson.stderr).toMatch(/^proofgate hook claude-code: stdin: must be the hook's JSON input \(.+\)\n\(failing open/);
      const noSession = await hook(db, { hook_event_name: "Stop", stop_hook_active: false });
      expect(noSession).toMatchObject({ code: 0, stdout: "" });
      expect(noSession.stderr).toContain("session_id: ");
      const badFlag = await hook(db, { ...stop(), stop_hook_active: "yes" });
      expect(badFlag.stderr).toContain("stop_hook_active: ");
      expect(await query(db, "select count(*) as n from events")).toEqual([{ n: 0 }]);
    });
  });
});

// The hook's own PostgreSQL code, on both engines: opening a `--database-url` that is not there.
describeEngines("the Claude Code hook", (engine) => {
  describe("proofgate hook claude-code (local mode)", () => {
    it("fails open when the database is missing or the server unreachable; --fail-closed holds the stop instead", async () => {
      // A file never created, or a database never created on the cluster.
      const dir = tempDir();
      const file = path.join(dir, "nope.db");
      const url = pgAdminUrl ? databaseUrl(pgAdminUrl, `nope_${process.pid}`) : "";
      const missing: Ledger =
        engine === "sqlite" ? { engine, dir, target: file, flag: ["--db", file] } : { engine, dir, target: url, flag: ["--database-url", url] };
      const open = await hook(missing, stop());
      expect(open).toMatchObject({ code: 0, stdout: "" });
      expect(open.stderr).toContain(engine === "sqlite" ? `database unavailable: no database at ${file}` : `database unavailable: `);
      expect(fs.existsSync(file)).toBe(false);

      const closed = await hook(missing, stop(), "--fail-closed");
      expect(closed.code).toBe(0);
      expect(JSON.parse(closed.stdout)).toEqual({
        decision: "block",
        reason: expect.stringContaining("Proofgate could not check the completion gate (database unavailable"),
      });
      // Never loop: a stop already continued by a hook goes through even fail-closed.
      expect(await hook(missing, stop(true), "--fail-closed")).toMatchObject({ code: 0, stdout: "" });

      const unreachable = await proofgate(["hook", "claude-code", "--url", "http://127.0.0.1:9", "--token", "pg_x"], { stdin: JSON.stringify(stop()) });
      expect(unreachable).toMatchObject({ code: 0, stdout: "" });
      expect(unreachable.stderr).toContain("server unreachable at http://127.0.0.1:9");
      const unreachableClosed = await proofgate(["hook", "claude-code", "--url", "http://127.0.0.1:9", "--fail-closed"], { stdin: JSON.stringify(stop()) });
      expect(JSON.parse(unreachableClosed.stdout).decision).toBe("block");
    });
  });
});

describe("proofgate hook claude-code, whichever the engine", () => {
  it("never exits 2 (Claude Code's block) on a mistyped flag", async () => {
    const run = await proofgate(["hook", "claude-code", "--max-blocks", "0"], { stdin: JSON.stringify(stop()) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("must be an integer from 1 to 100");
  });
});
