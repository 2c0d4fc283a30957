/**
 * `proofgate webhook add|list|test|log|remove` in local mode (the operator) and remote mode (an
 * admin token; a lead's is refused): a bad URL or secret exits 2 naming the argument and writes
 * nothing; the secret is printed once and is in the database file in no readable form.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Db, openDatabase } from "@/db/client";
import { createAuth } from "@/server/auth/auth";
import { handleTrpcRequest } from "@/server/api/handler";
import { operatorActor } from "@/server/domain/actors";
import { callerFor, tableCounts } from "@/test/support/api-helpers";
import { type CliResult, cli, removeWorkspaces, rows, workspace } from "@/test/support/cli-harness";

vi.setConfig({ testTimeout: 60_000 });
afterAll(removeWorkspaces);

async function ok(...args: string[]): Promise<CliResult> {
  const run = await cli(args);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

const dump = (db: string) => ["", "-wal"].map((end) => (fs.existsSync(db + end) ? fs.readFileSync(db + end).toString("latin1") : "")).join("");

describe("webhook commands in local mode", () => {
  it("refuse a bad URL or secret naming the argument (exit 2), writing nothing", async () => {
    const { db } = workspace();
    await ok("--db", db, "migrate");
    const before = dump(db).length;
    const badUrl = await cli(["--db", db, "webhook", "add", "ftp://example.com/x", "--events", "all"]);
    expect(badUrl).toMatchObject({ code: 2, stderr: expect.stringContaining("argument 'url': must use http or https, not ftp") });
    const badSecret = await cli(["--db", db, "webhook", "add", "https://example.com/x", "--events", "all", "--secret", "hunter2"]);
    expect(badSecret).toMatchObject({ code: 2, stderr: expect.stringContaining("--secret: must start with whsec_") });
    const badEvent = await cli(["--db", db, "webhook", "add", "https://example.com/x", "--events", "task.blocked,task.exploded"]);
    expect(badEvent).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--events: unknown event "task.exploded": must be all, or some of: task.blocked,'),
    });
    expect(rows(db, "select count(*) as n from webhook_subscriptions")).toEqual([{ n: 0 }]);
    expect(dump(db).length).toBe(before);
  });

  it("add prints the secret once; list, test, log and remove never show it", async () => {
    const { db } = workspace();
    const added = await ok(
      "--db",
      db,
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
    const listed = (await ok("--db", db, "webhook", "list")).stdout;
    expect(listed).toBe("#1  https://hooks.example.com/pg  task.blocked,session.failed  slack  delivered 0, pending 0, failed 0\n");
    expect((await ok("--db", db, "webhook", "test", "1")).stdout).toMatch(/^✓ Queued test delivery #1 to webhook #1/);
    expect((await ok("--db", db, "webhook", "log", "1")).stdout).toMatch(/^#1 {2}webhook\.test \(event \d+\) {2}pending {2}0 attempts {2}next /);
    expect(JSON.parse((await ok("--db", db, "--json", "webhook", "list")).stdout)).toEqual([expect.objectContaining({ id: 1, pending: 1 })]);
    expect(dump(db)).not.toContain(secret!.slice(6));
    expect((await ok("--db", db, "webhook", "remove", "1")).stdout).toBe("✓ Removed webhook #1\n");
    expect((await cli(["--db", db, "webhook", "remove", "1"])).code).toBe(3);
  });
});

describe("webhook commands in remote mode", () => {
  let server: http.Server;
  let url: string;
  let database: Db;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    const { db } = workspace();
    database = openDatabase(db);
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
    database.$client.close();
  });

  it("lets an admin token add, list and test; refuses a lead's token (exit 1), writing nothing", async () => {
    const added = await ok("--url", url, "--token", tokens.admin!, "--json", "webhook", "add", "https://hooks.example.com/r", "--events", "all");
    expect(JSON.parse(added.stdout)).toMatchObject({ id: 1, events: "all", format: "json", secret: expect.stringMatching(/^whsec_/) });
    expect((await ok("--url", url, "--token", tokens.admin!, "webhook", "test", "1")).stdout).toMatch(/the server delivers it within a second/);
    const before = tableCounts(database);
    const refused = await cli(["--url", url, "--token", tokens.lead!, "webhook", "add", "https://hooks.example.com/x", "--events", "all"]);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("role lead may not") });
    expect((await cli(["--url", url, "--token", tokens.lead!, "webhook", "list"])).code).toBe(1);
    expect(tableCounts(database)).toEqual(before);
  });
});
