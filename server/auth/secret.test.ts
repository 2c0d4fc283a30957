import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { authSecret } from "./secret";

const ROOT = path.resolve(__dirname, "../..");
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-secret-"));
  vi.stubEnv("BETTER_AUTH_SECRET", "");
});

afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the sign-in key kept beside the database", () => {
  it("is generated once, private, and the same on every later start", () => {
    const db = path.join(dir, "proofgate.db");
    const first = authSecret(db);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(`${db}.secret`).mode & 0o777).toBe(0o600);
    expect(authSecret(db)).toBe(first);
    expect(fs.readdirSync(dir)).toEqual(["proofgate.db.secret"]);
  });

  it("replaces an empty key file (what a crash could leave while it was first written) instead of failing every sign-in", () => {
    const db = path.join(dir, "proofgate.db");
    fs.writeFileSync(`${db}.secret`, "", { mode: 0o600 });
    const secret = authSecret(db);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(fs.readFileSync(`${db}.secret`, "utf8")).toBe(secret);
    expect(authSecret(db)).toBe(secret);
  });

  it("is the same key for several processes starting at once on a fresh database", async () => {
    const db = path.join(dir, "fresh.db");
    const script = path.join(dir, "child.ts");
    fs.writeFileSync(
      script,
      `import { authSecret } from ${JSON.stringify(path.join(ROOT, "server/auth/secret.ts"))};\nprocess.stdin.once("data", () => process.stdout.write(authSecret(process.argv[2]!) + "\\n"));\nprocess.stdout.write("ready\\n");\n`,
    );
    const tsx = path.join(ROOT, "node_modules", ".bin", "tsx");
    const children = Array.from({ length: 4 }, () =>
      spawn(tsx, [script, db], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, BETTER_AUTH_SECRET: "" } }),
    );
    const outputs = children.map(
      (child) =>
        new Promise<string>((resolve) => {
          let out = "";
          child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
          child.on("close", () => resolve(out));
        }),
    );
    await Promise.all(children.map((child) => new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))));
    for (const child of children) child.stdin.end("go\n");
    const keys = (await Promise.all(outputs)).map((out) => out.trim().split("\n").at(-1));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(fs.readFileSync(`${db}.secret`, "utf8"));
    expect(fs.readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  }, 60_000);
});
