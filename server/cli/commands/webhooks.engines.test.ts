/**
 * `proofgate webhook add|list|test|log|remove` in local mode (the operator) and remote mode (an
 * admin token; a lead's is refused): a bad URL or secret exits 2 naming the argument and writes
 * nothing; the secret is printed once and is in the database in no readable form. On a SQLite
 * file and on a PostgreSQL database.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { createAuth } from "@/server/auth/auth";
import { handleTrpcRequest } from "@/server/api/handler";
import { operatorActor } from "@/server/domain/actors";
import { callerFor } from "@/test/support/api-helpers";
import { type CliResult, type Ledger, cli, closeReaders, ledgerRows, ledgerWorkspace, removeWorkspaces } from "@/test/support/cli-harness";
import { describeEngines } from "@/test/support/engines";
import { columnsHolding, tableCountsOf } from "@/test/support/rows";

vi.setConfig({ testTimeout: 60_000 });
afterEach(closeReaders);
afterAll(removeWorkspaces);

async function ok(...args: string[]): Promise<CliResult> {
  const run = await cli(args);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

/** A SQLite file's bytes, its WAL's included. */
const dump = (file: string) => ["", "-wal"].map((end) => (fs.existsSync(file + end) ? fs.readFileSync(file + end).toString("latin1") : "")).join("");

/** Every table's row count, and the columns that hold `secret` (none may), read on a handle of its own. */
async function audit(db: Ledger, secret?: string): Promise<{ counts: Record<string, number>; holding: string[] }> {
  const reader = await openLedger(db.target, { migrate: false, poolSize: 1 });
  try {
    return { counts: await tableCountsOf(reader), holding: secret ? await columnsHolding(reader, secret) : [] };
  } finally {
    await closeLedger(reader);
  }
}

describeEngines("webhook commands", (engine) => {
  // On PostgreSQL webhook secrets are sealed under BETTER_AUTH_SECRET (there is no key file beside a database).
  beforeAll(() => {
    if (engine === "postgres") vi.stubEnv("BETTER_AUTH_SECRET", "x".repeat(32));
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  describe("webhook commands in local mode", () => {
    it("refuse a bad URL or secret naming the argument (exit 2), writing nothing", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(...db.flag, "migrate");
      const before = await audit(db);
      const bytes = engine === "sqlite" ? dump(db.target).length : 0;
      const badUrl = await cli([...db.flag, "webhook", "add", "ftp://example.com/x", "--events", "all"]);
      expect(badUrl).toMatchObject({ code: 2, stderr: expect.stringContaining("argument 'url': must use http or https, not ftp") });
      const badSecret = await cli([...db.flag, "webhook", "add", "https://example.com/x", "--events", "all", "--secret", "hunter2"]);
      expect(badSecret).toMatchObject({ code: 2, stderr: expect.stringContaining("--secret: must start with whsec_") });
      const badEvent = await cli([...db.flag, "webhook", "add", "https://example.com/x", "--events", "task.blocked,task.exploded"]);
      expect(badEvent).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--events: unknown event "task.exploded": must be all, or some of: task.blocked,'),
      });
      expect(await ledgerRows(db, "select count(*) as n from webhook_subscriptions")).toEqual([{ n: 0 }]);
      expect(await audit(db)).toEqual(before);
      if (engine === "sqlite") expect(dump(db.target).length).toBe(bytes);
    });

    it("add prints the secret once; list, test, log and remove never show it", async () => {
      const db = await ledgerWorkspace(engine);
      const added = await ok(
        ...db.flag,
        "--quiet",
        "webhook",
        "add",
        "https://hooks.example.com/pg",
        "--events",
        "task.blocked,session.failed",
        "--format",
        "slack",
      );
      const [secret, note] = added.stdout.trim().split("\n");
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{44}$/);
      expect(note).toBe(
        "(webhook #1 → https://hooks.example.com/pg, events task.blocked,session.failed, slack: the signing secret is shown once, stored encrypted)",
      );
      expect(added.stdout).toContain("the server delivers it when it runs");
      const listed = (await ok(...db.flag, "webhook", "list")).stdout;
      expect(listed).toBe("#1  https://hooks.example.com/pg  task.blocked,session.failed  slack  delivered 0, pending 0, failed 0\n");
      expect((await ok(...db.flag, "webhook", "test", "1")).stdout).toMatch(/^✓ Queued test delivery #1 to webhook #1/);
      expect((await ok(...db.flag, "webhook", "log", "1")).stdout).toMatch(/^#1 {2}webhook\.test \(event \d+\) {2}pending {2}0 attempts {2}next /);
      expect(JSON.parse((await ok(...db.flag, "--json", "webhook", "list")).stdout)).toEqual([expect.objectContaining({ id: 1, pending: 1 })]);
      if (engine === "sqlite") expect(dump(db.target)).not.toContain(secret!.slice(6));
      expect((await audit(db, secret!.slice(6))).holding).toEqual([]);
      expect((await ok(...db.flag, "webhook", "remove", "1")).stdout).toBe("✓ Removed webhook #1\n");
      expect((await cli([...db.flag, "webhook", "remove", "1"])).code).toBe(3);
    });
  });

  it.skipIf(engine !== "postgres")("on PostgreSQL without BETTER_AUTH_SECRET, add is refused naming it (exit 2), writing nothing", async () => {
    const db = await ledgerWorkspace(engine);
    const before = await audit(db);
    const run = await cli([...db.flag, "webhook", "add", "https://hooks.example.com/pg", "--events", "all"], { env: { BETTER_AUTH_SECRET: undefined } });
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(/^proofgate: BETTER_AUTH_SECRET must be set \(at least 32 characters, the same on every server\) to use a PostgreSQL database/);
    expect(await audit(db)).toEqual(before);
  });

  describe("webhook commands in remote mode", () => {
    let server: http.Server;
    let url: string;
    let database: Db;
    const tokens: Record<string, string> = {};
    beforeAll(async () => {
      database = await openLedger((await ledgerWorkspace(engine)).target, { poolSize: 4 });
      const auth = createAuth(database, { secret: "x".repeat(32), baseURL: "http://localhost:3000" });
      const admin = callerFor(database, operatorActor("setup"));
      for (const role of ["admin", "lead"] as const) tokens[role] = (await admin.admin.createToken({ name: `${role}-bot`, role })).token;
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          const headers = new Headers();
          for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
          const body = req.method === "GET" ? undefined : Buffer.concat(chunks);
          void handleTrpcRequest(
            new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }),
            () => database,
            () => auth,
          ).then(async (response) => {
            res.writeHead(response.status, { "content-type": "application/json" });
            res.end(await response.text());
          });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeLedger(database);
    });

    it("lets an admin token add, list and test; refuses a lead's token (exit 1), writing nothing", async () => {
      const added = await ok("--url", url, "--token", tokens.admin!, "--json", "webhook", "add", "https://hooks.example.com/r", "--events", "all");
      expect(JSON.parse(added.stdout)).toMatchObject({ id: 1, events: "all", format: "json", secret: expect.stringMatching(/^whsec_/) });
      expect((await ok("--url", url, "--token", tokens.admin!, "webhook", "test", "1")).stdout).toMatch(/the server delivers it within a second/);
      const before = await tableCountsOf(database);
      const refused = await cli(["--url", url, "--token", tokens.lead!, "webhook", "add", "https://hooks.example.com/x", "--events", "all"]);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("role lead may not") });
      expect((await cli(["--url", url, "--token", tokens.lead!, "webhook", "list"])).code).toBe(1);
      expect(await tableCountsOf(database)).toEqual(before);
    });
  });
});
