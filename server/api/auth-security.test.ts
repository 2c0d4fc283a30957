/**
 * People's sessions and secrets, over real requests: cookies are HttpOnly and SameSite (and
 * Secure when the public address is HTTPS), sign-in is rate-limited, a cookie-carrying write from
 * another site is refused on every mutation, and neither an API token nor a password is ever
 * stored or logged in clear (every column of every table, the SQLite file and its WAL, and
 * everything printed are searched). On both engines (issue 21).
 */
import fs from "node:fs";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { type Auth, createAuth } from "@/server/auth/auth";
import { operatorActor } from "@/server/domain/actors";
import { handleTrpcRequest } from "./handler";
import { VALID_INPUTS } from "@/test/support/procedure-inputs";
import { callerFor, procedurePaths } from "@/test/support/api-helpers";
import { describeEngines, sharedLedgerFactory } from "@/test/support/engines";
import { columnsHolding, tableCountsOf } from "@/test/support/rows";

const ORIGIN = "http://localhost:3000";
const PASSWORD = "correct horse battery staple 7a1f";
const freshLedger = sharedLedgerFactory();

function signIn(a: Auth, origin: string, email: string, password: string, ip: string): Promise<Response> {
  return a.handler(
    new Request(`${origin}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin, "x-forwarded-for": ip },
      body: JSON.stringify({ email, password }),
    }),
  );
}

describeEngines("people's sessions", (engine) => {
  let db: Db;
  let target: string;
  let auth: Auth;
  // Sign-in limits are counted per address in one store per process (better-auth's memory store): each engine signs in from its own.
  const address = (host: number) => `${engine === "sqlite" ? "198.51.100" : "203.0.113"}.${host}`;

  beforeAll(async () => {
    ({ db, target } = await freshLedger(engine));
    auth = createAuth(db, { secret: "x".repeat(32), baseURL: ORIGIN });
    await callerFor(db, operatorActor("setup")).session.create({ id: "s1" });
  });

  describe("cookies", () => {
    it("are HttpOnly and SameSite=Lax, and Secure (with the __Secure- prefix) when the public address is HTTPS", async () => {
      await callerFor(db, operatorActor("setup")).admin.createUser({ email: "cookie@example.com", password: PASSWORD, role: "lead" });
      const plain = await signIn(auth, ORIGIN, "cookie@example.com", PASSWORD, address(1));
      expect(plain.status).toBe(200);
      const session = plain.headers.getSetCookie().find((c) => c.startsWith("proofgate.session_token="))!;
      expect(session).toMatch(/; HttpOnly/i);
      expect(session).toMatch(/; SameSite=Lax/i);

      const https = createAuth(db, { secret: "x".repeat(32), baseURL: "https://proofgate.example" });
      const secure = await signIn(https, "https://proofgate.example", "cookie@example.com", PASSWORD, address(2));
      expect(secure.status).toBe(200);
      const secureSession = secure.headers.getSetCookie().find((c) => c.includes("proofgate.session_token="))!;
      expect(secureSession).toMatch(/^__Secure-proofgate\.session_token=/);
      expect(secureSession).toMatch(/; Secure/i);
      expect(secureSession).toMatch(/; HttpOnly/i);
      expect(secureSession).toMatch(/; SameSite=Lax/i);
    });
  });

  describe("sign-in", () => {
    it("is rate-limited per client address: the sixth attempt in a minute is refused 429, right password or not", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await signIn(auth, ORIGIN, "cookie@example.com", i < 5 ? "wrong password!" : PASSWORD, address(9))).status);
      expect(statuses.slice(0, 5).every((s) => s === 401)).toBe(true);
      expect(statuses[5]).toBe(429);
      // Another address is not held back by that one.
      expect((await signIn(auth, ORIGIN, "cookie@example.com", PASSWORD, address(10))).status).toBe(200);
    });
  });

  describe("a write from another site carrying a real session cookie", () => {
    let cookie: string;
    beforeAll(async () => {
      await callerFor(db, operatorActor("setup")).admin.createUser({ email: "admin@example.com", password: PASSWORD, role: "admin" });
      const res = await signIn(auth, ORIGIN, "admin@example.com", PASSWORD, address(50));
      cookie = res.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
    });

    const mutations = Object.entries(procedurePaths())
      .filter(([p, type]) => type === "mutation" && !p.startsWith("setup."))
      .map(([p]) => p);

    it.each(mutations)("POST %s with a foreign Origin is refused 403 csrf and writes nothing", async (procedure) => {
      const before = await tableCountsOf(db);
      const foreigners: Record<string, string>[] = [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }];
      for (const foreign of foreigners) {
        const res = await handleTrpcRequest(
          new Request(`${ORIGIN}/api/trpc/${procedure}`, {
            method: "POST",
            headers: { "content-type": "application/json", cookie, host: "localhost:3000", ...foreign },
            body: JSON.stringify({ json: VALID_INPUTS[procedure] }),
          }),
          () => db,
          () => auth,
        );
        const body = (await res.json()) as { error?: { json: { message: string } } };
        expect(res.status, JSON.stringify(foreign)).toBe(403);
        expect(body.error?.json.message).toMatch(/^csrf:/);
      }
      expect(await tableCountsOf(db)).toEqual(before);
    });
  });

  describe("secrets at rest and in logs", () => {
    it("stores an API token only as a hash and a password only as a scrypt hash, and prints neither", async () => {
      const printed: string[] = [];
      const capture = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
      const spies = [
        vi.spyOn(console, "log"),
        vi.spyOn(console, "info"),
        vi.spyOn(console, "warn"),
        vi.spyOn(console, "error"),
        vi.spyOn(console, "debug"),
      ].map((s) => s.mockImplementation(capture));
      const writes = [process.stdout, process.stderr].map((stream) =>
        vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true)),
      );
      let token: string;
      const password = "a secret password 9c2e41";
      try {
        const admin = callerFor(db, operatorActor("setup"));
        token = (await admin.admin.createToken({ name: "ci_bot", role: "agent" })).token;
        await admin.admin.createUser({ email: "secret@example.com", password, role: "viewer" });
        // Use both, so every code path that handles them (authentication, last-used time, sign-in) has run.
        const read = await handleTrpcRequest(
          new Request(`${ORIGIN}/api/trpc/session.list?input=${encodeURIComponent('{"json":{}}')}`, { headers: { authorization: `Bearer ${token}` } }),
          () => db,
          () => auth,
        );
        expect(read.status).toBe(200);
        expect((await signIn(auth, ORIGIN, "secret@example.com", password, address(99))).status).toBe(200);
        expect((await signIn(auth, ORIGIN, "secret@example.com", `${password}x`, address(99))).status).toBe(401);
      } finally {
        [...spies, ...writes].forEach((s) => s.mockRestore());
      }
      // SQLite: the file and its WAL, byte for byte (a row deleted or rewritten can linger there).
      if (engine === "sqlite") db.$client.pragma("wal_checkpoint(PASSIVE)");
      const files = engine === "sqlite" ? [target, `${target}-wal`].filter((f) => fs.existsSync(f)) : [];
      const bytes = Buffer.concat(files.map((f) => fs.readFileSync(f)));
      // The search finds what is stored in clear (the person's email) …
      expect(await columnsHolding(db, "secret@example.com")).toContain("users.email");
      // … and no secret.
      for (const secret of [token, password, token.slice(3)]) {
        expect(await columnsHolding(db, secret), "a column holds a secret in clear").toEqual([]);
        expect(bytes.includes(Buffer.from(secret, "utf8")), "the database file holds a secret in clear").toBe(false);
        expect(
          printed.some((line) => line.includes(secret)),
          "a secret was printed",
        ).toBe(false);
      }
    });
  });
});
