/**
 * The generated roles matrix: every procedure of the app router × every role, each case on its
 * own copy of one world, allowed or refused exactly as the permission table
 * (server/domain/permissions.ts) says, a refusal naming the table's rule. The table itself is held
 * to DESIGN.md: `SPEC` below is written from DESIGN.md and the goal ledger's role table, not read
 * from the code, so a role dropped from (or added to) the table fails here. Then every procedure
 * × the credentials that must not work — none, a revoked token, an expired token, an expired
 * cookie session — resolved from real requests the way the route does. On both engines (issue 21).
 */
// flake-risks time: an expiry a second in the past: expired whatever the clock reads after
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { rawRun } from "@/db/query";
import { type Auth, createAuth } from "@/server/auth/auth";
import { type Role, ROLES, operatorActor } from "@/server/domain/actors";
import { type Action, PERMISSIONS } from "@/server/domain/permissions";
import { createRequestContext } from "./context";
import { callPath, world } from "@/test/support/procedure-inputs";
import { createCaller } from "./root";
import { type Fixture, callerFor, procedurePaths, refusal, tokenActor } from "@/test/support/api-helpers";
import { describeEngines, ledgerFactory, onThrowawayCopy } from "@/test/support/engines";
import { tableCountsOf } from "@/test/support/rows";

const READ: readonly Role[] = ROLES;
const HUMANS: readonly Role[] = ["lead", "admin"];
/**
 * Who may call what. DESIGN.md's task table, plus admin wherever it lists agents' moves: local
 * mode acts as the machine's operator with admin rights ("Principals and roles").
 */
const WRITERS = ["agent", "orchestrator", "lead", "admin"] as const;
const PLAN = ["agent", "orchestrator", "lead", "admin"] as const;
const RECORD = ["agent", "orchestrator", "admin"] as const;
const LOG = ["agent", "orchestrator", "verifier", "lead", "admin"] as const;
const SPEC: Record<string, readonly Role[]> = {
  "session.create": WRITERS,
  "session.updateStatus": ["orchestrator", "lead", "admin"],
  // "only a lead may change it"
  "session.setEnforcement": HUMANS,
  "task.create": WRITERS,
  "task.report": WRITERS,
  "task.start": ["agent", "orchestrator", "admin"],
  "task.claim": ["agent", "admin"],
  "task.verify": ["verifier", "lead", "admin"],
  "task.block": ["verifier", "lead", "admin"],
  "task.complete": ["orchestrator", "lead", "admin"],
  "task.requestReset": ["orchestrator", "agent", "admin"],
  // "lead, admin (a human)"
  "task.approveReset": HUMANS,
  // issue 20: declining a reset request is a human's decision, like approving one
  "task.declineReset": HUMANS,
  // issue 20: the inbox's bulk decisions are the same human decisions, several tasks at once
  "task.approveResets": HUMANS,
  "task.declineResets": HUMANS,
  "criteria.save": WRITERS,
  "criteria.update": WRITERS,
  "criteria.verify": ["verifier", "lead", "admin"],
  "criteria.setRequired": HUMANS,
  "completion.check": ["agent", "verifier", "orchestrator", "lead", "admin"],
  "goal.create": PLAN,
  "goal.addValidationStep": PLAN,
  "goal.setContract": PLAN,
  "goal.createBranch": PLAN,
  "goal.createWorktree": RECORD,
  "goal.recordMerge": RECORD,
  "goal.evaluate": ["verifier", "orchestrator", "lead", "admin"],
  "attempt.start": RECORD,
  "attempt.toolCalls": RECORD,
  "attempt.finish": RECORD,
  "attempt.validationRun": RECORD,
  "attempt.trustScore": ["verifier", "lead", "admin"],
  "log.interaction": LOG,
  "log.reasoning": LOG,
  "log.event": LOG,
  "log.tokens": LOG,
  "log.batch": LOG,
  "log.saveState": LOG,
  "log.saveSkillOutput": LOG,
  "log.decision": LOG,
  "log.savePlan": LOG,
  "log.planProgress": LOG,
  "log.saveContextPackage": LOG,
  "log.markContextConsumed": LOG,
  // BAZINGA's context engineering is telemetry too: whoever may write logs.
  "log.saveErrorPattern": LOG,
  "log.updateErrorConfidence": LOG,
  "log.cleanupErrorPatterns": LOG,
  "log.saveStrategy": LOG,
  "log.updateStrategyHelpfulness": LOG,
  "log.extractStrategies": LOG,
  "log.saveConsumption": LOG,
};
/** Users, tokens and the configuration tables are an admin's. */
const ADMIN_ONLY = /^admin\./;
/**
 * "a human's personal token with their own role": people (viewer, lead, admin) hold personal tokens,
 * agent tokens do not. (The matrix's callers are tokens, so an allowed role is still refused here,
 * by account.person_required: the person-only rule is the service tests'.)
 */
const PERSONAL = /^account\./;
const PEOPLE: readonly Role[] = ["viewer", "lead", "admin"];
/** Callable without signing in: first-run setup (setup.test.ts). */
const PUBLIC = new Set(["setup.status", "setup.createFirstAdmin"]);

const procedures = Object.entries(procedurePaths()).filter(([p]) => !PUBLIC.has(p));

/** Which row of the permission table a procedure answers to: reads need `read`, each write its own action. */
function actionOf(procedure: string, type: string): Action {
  if (ADMIN_ONLY.test(procedure)) {
    if (/^admin\.(users|createUser|setUserRole)$/.test(procedure)) return "admin.users";
    if (/^admin\.(tokens|createToken|revokeToken)$/.test(procedure)) return "admin.tokens";
    if (/^admin\.(webhooks|createWebhook|removeWebhook|testWebhook|webhookDeliveries)$/.test(procedure)) return "admin.webhooks";
    return "admin.config";
  }
  if (PERSONAL.test(procedure)) return procedure as Action;
  if (type !== "mutation") return "read";
  if (procedure.startsWith("log.")) return "log.write";
  if (procedure in PERMISSIONS) return procedure as Action;
  throw new Error(`${procedure}: add it to the permission table (server/domain/permissions.ts) and to SPEC here`);
}

function expectedRoles(procedure: string, type: string): readonly Role[] {
  return PERMISSIONS[actionOf(procedure, type)].roles;
}

/** What DESIGN.md says, independently of the table. */
function specRoles(procedure: string, type: string): readonly Role[] {
  if (ADMIN_ONLY.test(procedure)) return ["admin"];
  if (PERSONAL.test(procedure)) return PEOPLE;
  if (type !== "mutation") return READ;
  const allowed = SPEC[procedure];
  if (!allowed) throw new Error(`${procedure}: add it to SPEC (who may call it, per DESIGN.md)`);
  return allowed;
}

/** A refusal because of who is calling (middleware, service or domain: they all say "role X may not …"). */
function isRoleRefusal(r: { code: string; message: string }): boolean {
  return r.code === "FORBIDDEN" && /^role \w+ may not /.test(r.message);
}

const freshLedger = ledgerFactory();

// PostgreSQL takes the instance key from the environment (server/auth/secret.ts): the world's webhook secret is sealed under it.
beforeAll(() => void vi.stubEnv("BETTER_AUTH_SECRET", "roles-matrix-key-roles-matrix-key-0123456789"));
afterAll(() => void vi.unstubAllEnvs());

it("knows who may call every procedure, and the permission table says what DESIGN.md says", () => {
  for (const [procedure, type] of procedures) {
    expect(() => expectedRoles(procedure, type), procedure).not.toThrow();
    expect([...expectedRoles(procedure, type)].sort(), procedure).toEqual([...specRoles(procedure, type)].sort());
  }
});

const cases = procedures.flatMap(([procedure, type]) => ROLES.map((role) => [procedure, type, role] as const));

describeEngines("every procedure × every role", (engine) => {
  let base: Fixture;
  beforeAll(async () => {
    base = await world(await freshLedger(engine));
  }, 60_000);

  const outcomes = { allowedSucceeded: 0, allowedRefusedByState: 0, refused: 0 };

  it.each(cases)("%s (%s) as %s", async (procedure, type, role) => {
    await onThrowawayCopy(base.db, async (db) => {
      // A principal with no history, whose label is nobody's claim.
      const caller = callerFor(db, tokenActor(900 + ROLES.indexOf(role), role, `${role}_matrix`));
      const before = await tableCountsOf(db);
      const settled = await callPath(caller, procedure).then(
        async (result) => {
          if (result !== null && typeof result === "object" && Symbol.asyncIterator in result)
            await (result as AsyncIterable<unknown>)[Symbol.asyncIterator]().return?.(undefined);
          return null;
        },
        (error: unknown) => refusal(Promise.reject(error)),
      );
      const allowed = expectedRoles(procedure, type).includes(role);
      if (allowed) {
        if (settled) {
          expect(isRoleRefusal(settled), `${role} must be allowed ${procedure}, got: ${settled.message}`).toBe(false);
          expect(settled.code).not.toBe("INTERNAL_SERVER_ERROR");
          outcomes.allowedRefusedByState++;
        } else outcomes.allowedSucceeded++;
      } else {
        expect(settled, `${role} must be refused ${procedure}`).not.toBeNull();
        expect(isRoleRefusal(settled!), `${role} refused ${procedure} for the wrong reason: ${settled!.code} ${settled!.message}`).toBe(true);
        expect(settled!.data.rule, `${role} refused ${procedure}: the table's rule`).toBe(PERMISSIONS[actionOf(procedure, type)].rule);
        expect(await tableCountsOf(db)).toEqual(before);
        outcomes.refused++;
      }
    });
  });

  it("let most allowed calls through (a refusal by state, such as completing a claimed task, is the exception)", () => {
    console.info(
      `roles-matrix on ${engine}: ${cases.length} cases; allowed and succeeded ${outcomes.allowedSucceeded}, allowed but refused by a state rule ${outcomes.allowedRefusedByState}, refused by role ${outcomes.refused}`,
    );
    expect(outcomes.allowedSucceeded).toBeGreaterThan(outcomes.allowedRefusedByState * 3);
  });
});

describeEngines("credentials that must not work", (engine) => {
  const ORIGIN = "http://localhost:3000";
  let db: Db;
  let auth: Auth;
  const headers: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    db = await freshLedger(engine);
    auth = createAuth(db, { secret: "x".repeat(32), baseURL: ORIGIN });
    const admin = callerFor(db, operatorActor("setup"));
    await admin.session.create({ id: "s1" });
    const revoked = await admin.admin.createToken({ name: "revoked", role: "admin" });
    await admin.admin.revokeToken({ id: revoked.id });
    const expired = await admin.admin.createToken({ name: "expired", role: "admin", expiresInDays: 1 });
    await rawRun(db, sql`update api_tokens set expires_at = ${Date.now() - 1000} where id = ${expired.id}`);
    await admin.admin.createUser({ email: "lead@example.com", password: "correct horse battery staple", role: "admin" });
    const signIn = await auth.handler(
      new Request(`${ORIGIN}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN },
        body: JSON.stringify({ email: "lead@example.com", password: "correct horse battery staple" }),
      }),
    );
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    // The session is past its expiry (as after a week away): the cookie alone must not let anyone in.
    await rawRun(db, sql`update auth_sessions set expires_at = ${Date.now() - 1000}`);
    headers["anonymous"] = {};
    headers["revoked token"] = { authorization: `Bearer ${revoked.token}` };
    headers["expired token"] = { authorization: `Bearer ${expired.token}` };
    headers["expired cookie session"] = { cookie, origin: ORIGIN, host: "localhost:3000" };
  });

  const credentialCases = procedures.flatMap(([procedure]) =>
    ["anonymous", "revoked token", "expired token", "expired cookie session"].map((who) => [procedure, who] as const),
  );

  it.each(credentialCases)("%s with %s is UNAUTHORIZED and writes nothing", async (procedure, who) => {
    const ctx = await createRequestContext(new Request(`${ORIGIN}/api/trpc/${procedure}`, { method: "POST", headers: headers[who] }), db, auth);
    const before = await tableCountsOf(db);
    const r = await refusal(callPath(createCaller(ctx), procedure));
    expect(r.code).toBe("UNAUTHORIZED");
    expect(r.data.rule).toBe(who.endsWith("token") ? "auth.token" : "auth.required");
    expect(await tableCountsOf(db)).toEqual(before);
  });
});
