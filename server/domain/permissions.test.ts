import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROLES, type Role, operatorActor } from "./actors";
import { RoleForbiddenError } from "./errors";
import { ACTIONS, PERMISSIONS, authorize, may, permissionsMarkdown, roleSummary } from "./permissions";
import { MOVE_ACTIONS, MOVE_RULES, TASK_MOVES } from "./task-machine";

const actor = (role: Role) => ({ role });

describe("the permission table", () => {
  it("gives every action a rule and at least admin", () => {
    for (const action of ACTIONS) {
      expect(PERMISSIONS[action].rule, action).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(may("admin", action), action).toBe(true);
    }
  });

  it("lets a viewer read and manage their own personal tokens, and nothing else", () => {
    expect(ACTIONS.filter((action) => may("viewer", action))).toEqual(["read", "account.tokens", "account.createToken", "account.revokeToken"]);
  });

  it("gives personal tokens to people only: agent tokens have no owner", () => {
    for (const action of ["account.tokens", "account.createToken", "account.revokeToken"] as const) {
      expect(
        ROLES.filter((role) => may(role, action)),
        action,
      ).toEqual(["viewer", "lead", "admin"]);
    }
  });

  it("is where the task machine's moves get their roles", () => {
    for (const move of TASK_MOVES) expect(MOVE_RULES[move].roles).toBe(PERMISSIONS[MOVE_ACTIONS[move]].roles);
  });

  it.each(ACTIONS.flatMap((action) => ROLES.map((role) => [action, role] as const)))("authorize(%s) as %s follows the table", (action, role) => {
    const p = PERMISSIONS[action];
    if ((p.roles as readonly Role[]).includes(role)) {
      expect(() => authorize(actor(role), action)).not.toThrow();
      return;
    }
    try {
      authorize(actor(role), action);
      expect.unreachable(`${role} must be refused ${action}`);
    } catch (error) {
      expect(error).toBeInstanceOf(RoleForbiddenError);
      expect((error as RoleForbiddenError).rule).toBe(p.rule);
      expect((error as Error).message).toBe(`role ${role} may not ${p.does} (allowed: ${p.roles.join(", ")})`);
    }
  });

  it("lets a caller word the action in a refusal", () => {
    expect(() => authorize(actor("lead"), "admin.users", "create users")).toThrow("role lead may not create users (allowed: admin)");
  });

  it("the local operator is an admin", () => {
    for (const action of ACTIONS) expect(() => authorize(operatorActor("developer_1"), action)).not.toThrow();
  });
});

describe("what people are shown", () => {
  it("summarises each role from the table", () => {
    // A viewer changes nothing in the ledger; their own personal tokens are theirs to manage.
    expect(roleSummary("viewer")).toBe("reads everything; personal API tokens: all");
    expect(roleSummary("agent")).not.toContain("personal API tokens");
    expect(roleSummary("admin")).toBe(
      "reads everything; sessions: all; task moves: all; criteria and completion: all; goals and attempts: all; telemetry: all; personal API tokens: all; administration: all",
    );
    expect(roleSummary("verifier")).toContain("task moves: verify a task, block a task");
    expect(roleSummary("verifier")).toContain("criteria and completion: record a verifier finding on a criterion, run the completion check");
    expect(roleSummary("lead")).toContain("approve a reset of a task");
    expect(roleSummary("lead")).not.toContain("administration");
  });

  it("prints one Markdown row per action with a column per role", () => {
    const lines = permissionsMarkdown().split("\n");
    expect(lines).toHaveLength(ACTIONS.length + 2);
    expect(lines[0]).toBe(`| action | what it does | ${ROLES.join(" | ")} | refused as |`);
    expect(lines).toContain("| `task.claim` | claim a task |  | ✓ |  |  |  | ✓ | `task.claim_role` |");
  });

  it("is the table the README prints (npm run docs:permissions writes it)", () => {
    const readme = fs.readFileSync(path.join(__dirname, "../../README.md"), "utf8");
    const printed = /<!-- permissions:start -->\n([\s\S]*?)\n<!-- permissions:end -->/.exec(readme)?.[1];
    expect(printed, "README.md has no permissions table between its markers").toBeDefined();
    expect(printed).toBe(permissionsMarkdown());
  });
});
