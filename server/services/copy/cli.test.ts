/**
 * `proofgate copy` end to end through the built executable (bin/proofgate.mjs → dist/cli.cjs, which
 * vitest's global setup builds): a demo ledger with a webhook goes SQLite → PostgreSQL → SQLite,
 * printing its per-table summary and progress without the URL's password, saying which key file
 * to carry over; a second copy into the same database is refused with exit 1 and writes nothing.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, inject, it, vi } from "vitest";
import { openDatabase } from "@/db/client";
import { openSecret } from "@/server/services/webhooks/secret-box";
import { createTestDatabase } from "@/test/support/pg-cluster";
import { ledgerHashes } from "./copy";

vi.setConfig({ testTimeout: 120_000 });
const adminUrl = inject("pgAdminUrl");
const template = inject("pgTemplate");
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bin", "proofgate.mjs");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-copy-cli-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function proofgate(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { ...process.env, PROOFGATE_DB: "", PROOFGATE_URL: "", BETTER_AUTH_SECRET: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The same URL with a password in it (the test cluster trusts its local connections, so any password works). */
function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

describe.skipIf(!adminUrl)("proofgate copy (the built executable)", () => {
  it("copies SQLite → PostgreSQL → SQLite, verified, with a per-table summary, progress, the key file to carry over, and no password shown", async () => {
    const source = path.join(dir, "ledger.db");
    expect((await proofgate(["demo", "--db", source, "--sessions", "3", "--seed", "5", "--quiet"])).code).toBe(0);
    expect((await proofgate(["webhook", "add", "https://hooks.example.com/pg", "--events", "task.blocked", "--db", source])).code).toBe(0);
    expect(fs.existsSync(`${source}.secret`)).toBe(true);
    const original = await ledgerHashes(source);

    const password = "s3cret-Pa55";
    const url = withPassword(await createTestDatabase(adminUrl!, undefined, { template }), password);
    const text = await proofgate(["copy", "--from", source, "--to", url], { PROOFGATE_PROGRESS_INTERVAL_MS: "1" });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^✓ Copied \d+ rows in \d+ tables from .*ledger\.db \(sqlite\) to postgres:\/\/postgres:\*\*\*@localhost:\d+\/\S+ \(postgres\) in /,
    );
    expect(text.stdout).toMatch(/\n {2}tasks +\d+ +\d+ ms\n/);
    expect(text.stdout).toContain(`set BETTER_AUTH_SECRET to the contents of ${source}.secret on every server of`);
    expect(text.stderr).toMatch(/^copy: copying \d+\/\d+ rows \(100%\) in /m);
    expect(text.stderr).toMatch(/^copy: verifying \d+\/\d+ rows \(100%\) in /m);
    expect(text.stdout + text.stderr).not.toContain(password);
    expect(await ledgerHashes(url)).toEqual(original);

    // Again into the same database: refused (exit 1), naming the first table that holds rows; nothing changes.
    const again = await proofgate(["copy", "--from", source, "--to", url, "--json"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toEqual({
      error: { rule: "copy.target_not_empty", message: expect.stringMatching(/already holds ledger rows \(table \w+\).*nothing was written/) },
    });
    expect(again.stderr).not.toContain(password);
    expect(await ledgerHashes(url)).toEqual(original);

    // Back to a new file, --json.
    const back = path.join(dir, "restored.db");
    const json = await proofgate(["copy", "--from", url, "--to", back, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe("");
    const result = JSON.parse(json.stdout) as {
      verified: boolean;
      rows: number;
      tables: { table: string; rows: number; hash: string }[];
      secret: { needed: boolean; webhooks: number; instruction: string };
    };
    expect(result).toMatchObject({ verified: true, secret: { needed: true, webhooks: 1 } });
    expect(result.secret.instruction).toContain(`${back}.secret (mode 0600)`);
    expect(Object.fromEntries(result.tables.map((t) => [t.table, { rows: t.rows, hash: t.hash }]))).toEqual(original);
    expect(await ledgerHashes(back)).toEqual(original);
    expect(json.stdout).not.toContain(password);

    // What the output says to carry over is what the webhook's sealed signing secret needs on the copy.
    vi.stubEnv("BETTER_AUTH_SECRET", "");
    const opened: ReturnType<typeof openDatabase>[] = [];
    const sealedOn = (file: string) => {
      const db = openDatabase(file);
      opened.push(db);
      const sealed = db.$client.prepare("SELECT secret_sealed FROM webhook_subscriptions").pluck().get() as string;
      return () => openSecret(db, sealed);
    };
    const withoutKey = sealedOn(back);
    expect(withoutKey).toThrow(/cannot decrypt the signing secret/);
    fs.copyFileSync(`${source}.secret`, `${back}.secret`);
    const withKey = sealedOn(back);
    expect(withKey()).toBe(sealedOn(source)());
    expect(withKey()).toMatch(/^whsec_/);
    for (const db of opened) db.$client.close();
    vi.unstubAllEnvs();
  });

  it("loads pg only for a postgres:// URL: a SQLite → SQLite copy runs without it", async () => {
    const source = path.join(dir, "small.db");
    expect((await proofgate(["demo", "--db", source, "--sessions", "1", "--quiet"])).code).toBe(0);
    // pg is inlined in the bundle, and loading it requires node:dns (pg/lib/connection-parameters.js) at once, which nothing else of a local call does.
    const guard = path.join(dir, "no-dns.cjs");
    fs.writeFileSync(
      guard,
      `const Module = require("node:module"); const load = Module._load; Module._load = function (request, ...rest) { if (request === "dns" || request === "node:dns") throw new Error("pg was loaded (it asked for " + request + ")"); return load.call(this, request, ...rest); };`,
    );
    const env = { NODE_OPTIONS: `--require ${guard}` };
    const run = await proofgate(["copy", "--from", source, "--to", path.join(dir, "small-copy.db"), "--json"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: true, engines: { from: "sqlite", to: "sqlite" } });
    // The guard does catch pg: the same call with a postgres:// target fails on it.
    const url = await createTestDatabase(adminUrl!, undefined, { template });
    const guarded = await proofgate(["copy", "--from", source, "--to", url, "--dry-run"], env);
    expect(guarded.stderr).toContain("pg was loaded (it asked for dns)");
  });

  it("refuses a server URL, bad arguments and the same file, exit 2, creating nothing", async () => {
    const source = path.join(dir, "ledger.db");
    const target = path.join(dir, "never.db");
    expect(await proofgate(["copy", "--from", source, "--to", target, "--url", "http://127.0.0.1:9"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--url names a server"),
    });
    expect((await proofgate(["copy", "--from", source, "--to", ""])).stderr).toContain("--to <database>");
    expect(await proofgate(["copy", "--from", source, "--to", path.join(dir, ".", "ledger.db")])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("same database"),
    });
    expect(fs.existsSync(target)).toBe(false);
    // Some other SQLite database: not migrated into a ledger, not touched.
    const other = path.join(dir, "other.db");
    const foreign = new Database(other);
    foreign.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    foreign.close();
    expect(await proofgate(["copy", "--from", source, "--to", other])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("holds other tables (notes) and no ledger"),
    });
    const after = new Database(other, { readonly: true });
    expect(after.prepare("SELECT name FROM sqlite_master").pluck().all()).toEqual(["notes"]);
    after.close();
  });

  it("says which side is unavailable, exit 4, without the password", async () => {
    const source = path.join(dir, "ledger.db");
    const down = await proofgate(["copy", "--from", source, "--to", "postgres://proofgate:hunter22@127.0.0.1:1/ledger"]);
    expect(down).toMatchObject({
      code: 4,
      stderr: expect.stringContaining("database unavailable: --to postgres://proofgate:***@127.0.0.1:1/ledger: connect ECONNREFUSED"),
    });
    expect(down.stderr).not.toContain("hunter22");
    const text = path.join(dir, "notes.txt");
    fs.writeFileSync(text, "not a database\n");
    expect(await proofgate(["copy", "--from", text, "--to", path.join(dir, "never.db")])).toMatchObject({
      code: 4,
      stderr: `proofgate: database unavailable: --from ${text}: file is not a database\n`,
    });
  });
});
