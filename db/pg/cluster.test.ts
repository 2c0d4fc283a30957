import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findPgBinDir, type PgCluster, startPgCluster } from "@/test/support/pg-cluster";
import { closePgDatabase, openPgDatabase } from "./client";

/** The throwaway-cluster harness itself (test/support/pg-cluster.ts), in its plain-function form. */
// Each test runs initdb and starts PostgreSQL (two clusters in one of them): seconds alone, tens of seconds on a loaded
// machine. A hang guard above the child processes' own 60 s, not a claim about speed.
describe.skipIf(!findPgBinDir())("startPgCluster", { timeout: 180_000 }, () => {
  const started: PgCluster[] = [];
  afterAll(() => started.forEach((c) => c.stop()));

  const postmasterPid = (dir: string) => Number(fs.readFileSync(path.join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it("starts a private cluster on its own port and socket, clones databases from a template, and leaves nothing behind", async () => {
    const migrationsFolder = fs.mkdtempSync(path.join(os.tmpdir(), "pg-template-"));
    fs.mkdirSync(path.join(migrationsFolder, "meta"));
    const journal = { version: "7", dialect: "postgresql", entries: [{ idx: 0, version: "7", when: 1, tag: "0000_seed", breakpoints: true }] };
    fs.writeFileSync(path.join(migrationsFolder, "meta", "_journal.json"), JSON.stringify(journal));
    fs.writeFileSync(path.join(migrationsFolder, "0000_seed.sql"), "CREATE TABLE seeded (n int);\n--> statement-breakpoint\nINSERT INTO seeded VALUES (42);");
    const cluster = await startPgCluster({ template: { name: "tmpl", migrationsFolder } });
    fs.rmSync(migrationsFolder, { recursive: true });
    started.push(cluster);
    expect(cluster.port).not.toBe(5432);
    expect(fs.existsSync(path.join(cluster.dir, `.s.PGSQL.${cluster.port}`))).toBe(true);

    // The template was migrated and left with no connection (or the clone would be refused).
    const copy = await openPgDatabase(await cluster.createDatabase("copy_1", { template: "tmpl" }), { migrate: false, max: 1 });
    const settings = await copy.$client.query(
      "SELECT current_database() AS db, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync, (SELECT n FROM seeded) AS n",
    );
    expect(settings.rows[0]).toEqual({ db: "copy_1", fsync: "off", sync: "off", n: 42 });
    expect((await copy.$client.query(`SELECT count(*)::int AS n FROM "drizzle"."__drizzle_migrations"`)).rows[0].n).toBe(1);
    await closePgDatabase(copy);

    const pid = postmasterPid(cluster.dir);
    cluster.stop();
    expect(fs.existsSync(cluster.dir)).toBe(false);
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false); // it removes its pid file just before it exits
    await expect(cluster.createDatabase("late")).rejects.toThrow();
  });

  it("restarts with the settings it was started with, and a pool carries on over new connections", async () => {
    const cluster = await startPgCluster({ settings: { fsync: "on", shared_buffers: "64MB" } });
    started.push(cluster);
    const db = await openPgDatabase(await cluster.createDatabase("restarted"), { migrate: false, max: 1 });
    try {
      const settings = async () =>
        (await db.$client.query("SELECT current_setting('fsync') AS fsync, current_setting('shared_buffers') AS sb, pg_backend_pid() AS pid")).rows[0] as {
          fsync: string;
          sb: string;
          pid: number;
        };
      const before = await settings();
      expect(before).toMatchObject({ fsync: "on", sb: "64MB" });
      const postmaster = postmasterPid(cluster.dir);
      cluster.restart();
      expect(postmasterPid(cluster.dir)).not.toBe(postmaster);
      // The pool's idle connection was dropped by the restart; the pool discards it and connects again.
      await expect.poll(async () => (await settings().catch(() => undefined))?.fsync, { timeout: 30_000 }).toBe("on");
      const after = await settings();
      expect(after).toMatchObject({ fsync: "on", sb: "64MB" });
      expect(after.pid).not.toBe(before.pid);
    } finally {
      await closePgDatabase(db);
    }
  });

  it("refuses database names that are not plain identifiers", async () => {
    const { createTestDatabase } = await import("@/test/support/pg-cluster");
    await expect(createTestDatabase("postgres://nowhere/x", 'x"; DROP DATABASE postgres; --')).rejects.toThrow("not a plain lower-case identifier");
  });

  /** A process that starts a cluster, prints its folder and then exits (or waits to be killed). */
  const owner = (mode: "exit" | "hang") => {
    const script = `
      const { startPgCluster } = await import("./test/support/pg-cluster.ts");
      const cluster = await startPgCluster();
      console.log(cluster.dir);
      ${mode === "hang" ? "setInterval(() => {}, 1000);" : ""}
    `;
    return ["--import", "tsx", "--input-type=module", "-e", script];
  };

  it("a process that exits without stopping its cluster stops and deletes it on the way out", () => {
    const result = spawnSync(process.execPath, owner("exit"), { encoding: "utf8", timeout: 60_000 });
    const dir = result.stdout.trim();
    expect(dir).toMatch(/proofgate-pgcluster-/);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("a cluster whose owner was killed (SIGKILL: no exit hook) is stopped and deleted by the next start", async () => {
    const child = spawn(process.execPath, owner("hang"), { stdio: ["ignore", "pipe", "inherit"] });
    const dir = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child.once("exit", (code) => reject(new Error(`owner exited early (${code})`)));
    });
    const pid = postmasterPid(dir);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(alive(pid)).toBe(true); // orphaned: nobody stopped it

    const next = await startPgCluster();
    started.push(next);
    expect(fs.existsSync(dir)).toBe(false);
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false); // it removes its pid file just before it exits
  });
});
