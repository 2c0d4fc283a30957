import { describe, expect, it } from "vitest";
import { contextPackageConsumers } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { getContextPackages } from "./get-context-packages";
import { markContextConsumed } from "./mark-context-consumed";
import { saveContextPackage } from "./save-context-package";
import type { SaveContextPackageInput } from "./schemas";
import { SESSION, T0, eventsOfType, setup } from "@/test/support/log-helpers";

type PackageInput = Omit<SaveContextPackageInput, "sessionId" | "filePath" | "producerAgent" | "summary">;

function seed() {
  const fixture = setup();
  const { admin, setClock } = fixture;
  let second = 0;
  const save = (input: PackageInput) => {
    setClock(1000 * second++);
    return saveContextPackage(admin, {
      sessionId: SESSION,
      filePath: `bazinga/artifacts/${SESSION}/ctx-${second}.md`,
      producerAgent: "requirements_engineer",
      summary: `package ${second}`,
      ...input,
    }).package;
  };
  const p = {
    researchHigh: save({ groupId: "group_a", packageType: "research", priority: "high", consumers: ["developer", "qa_expert"] }),
    globalCritical: save({ packageType: "decisions", priority: "critical", consumers: ["developer"] }),
    failuresV1: save({ groupId: "group_a", packageType: "failures", consumers: ["Developer"] }),
    otherGroup: save({ groupId: "group_b", packageType: "handoff", priority: "critical", consumers: ["developer"] }),
    newerHigh: save({ groupId: "group_a", packageType: "research", priority: "high", consumers: ["developer"] }),
    notForDevelopers: save({ groupId: "group_a", packageType: "research", priority: "low", consumers: ["tech_lead"] }),
  };
  const failuresV2 = save({ groupId: "group_a", packageType: "failures", consumers: ["developer"], supersedesId: p.failuresV1.id });
  return { ...fixture, p: { ...p, failuresV2 } };
}

const route = (db: Parameters<typeof getContextPackages>[0], extra: { limit?: number; includeConsumed?: boolean } = {}) =>
  getContextPackages(db, { sessionId: SESSION, groupId: "group_a", agentType: "developer", ...extra });

describe("saveContextPackage", () => {
  it("stores the package and one pending consumer row per agent type; global when no group", () => {
    const { db, p } = seed();
    expect(p.globalCritical).toMatchObject({ groupId: null, scope: "global", priority: "critical", version: 1 });
    expect(p.researchHigh).toMatchObject({ groupId: "group_a", scope: "group", producerAgent: "requirements_engineer" });
    expect(p.failuresV2).toMatchObject({ version: 2, supersedesId: p.failuresV1.id, priority: "medium" });
    const consumers = db
      .select()
      .from(contextPackageConsumers)
      .all()
      .filter((c) => c.packageId === p.researchHigh.id || c.packageId === p.failuresV1.id);
    expect(consumers.map((c) => [c.packageId, c.agentType, c.iteration, c.consumedAt])).toEqual([
      [p.researchHigh.id, "developer", 1, null],
      [p.researchHigh.id, "qa_expert", 1, null],
      [p.failuresV1.id, "developer", 1, null],
    ]);
    expect(eventsOfType(db, "context_package.saved")).toHaveLength(7);
  });

  it("keeps the summary to one line of at most 200 characters", () => {
    const { admin } = setup();
    const { package: pkg } = saveContextPackage(admin, {
      sessionId: SESSION,
      packageType: "research",
      filePath: "f.md",
      producerAgent: "investigator",
      consumers: ["developer"],
      summary: `Endpoints\nand scopes ${"x".repeat(300)}`,
    });
    expect(pkg.summary).toBe(`Endpoints and scopes ${"x".repeat(176)}...`);
    expect(pkg.summary).toHaveLength(200);
  });

  it("refuses to supersede a package that is not in the session", () => {
    const { admin } = setup();
    expect(() =>
      saveContextPackage(admin, {
        sessionId: SESSION,
        packageType: "research",
        filePath: "f.md",
        producerAgent: "investigator",
        consumers: ["developer"],
        summary: "s",
        supersedesId: 999,
      }),
    ).toThrow(expect.objectContaining({ field: "supersedesId", rule: "context.supersedes_unknown" }));
  });
});

describe("getContextPackages", () => {
  it("ranks the group's and global packages for the agent by priority, then newest; hides superseded, other groups, other agents", () => {
    const { db, p } = seed();
    expect(route(db, { limit: 10 }).map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.newerHigh.id, p.researchHigh.id, p.failuresV2.id]);
    expect(route(db).map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.newerHigh.id, p.researchHigh.id]);
    expect(route(db)[0]).toMatchObject({ pending: true, consumedAt: null });
  });

  it("drops consumed packages unless asked, and then shows when they were consumed", () => {
    const { db, admin, setClock, p } = seed();
    setClock(60_000);
    markContextConsumed(admin, { packageId: p.newerHigh.id, agentType: "developer" });
    expect(route(db, { limit: 10 }).map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.researchHigh.id, p.failuresV2.id]);
    const all = route(db, { limit: 10, includeConsumed: true });
    expect(all.map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.newerHigh.id, p.researchHigh.id, p.failuresV2.id]);
    expect(all[1]).toMatchObject({ pending: false, consumedAt: new Date(T0 + 60_000) });
  });
});

describe("markContextConsumed", () => {
  it("sets consumed_at on the consumer row, once, and appends one event", () => {
    const { db, admin, setClock, p } = seed();
    setClock(60_000);
    const row = markContextConsumed(admin, { packageId: p.researchHigh.id, agentType: "QA_Expert" });
    expect(row).toMatchObject({ agentType: "qa_expert", iteration: 1, consumedAt: new Date(T0 + 60_000) });
    setClock(120_000);
    expect(markContextConsumed(admin, { packageId: p.researchHigh.id, agentType: "qa_expert" })).toEqual(row);
    expect(eventsOfType(db, "context_package.consumed")).toMatchObject([
      { entityId: String(p.researchHigh.id), data: { agentType: "qa_expert", iteration: 1, created: false } },
    ]);
  });

  it("creates the consumer row for a new iteration", () => {
    const { db, admin, p } = seed();
    const row = markContextConsumed(admin, { packageId: p.researchHigh.id, agentType: "developer", iteration: 2 });
    expect(row).toMatchObject({ agentType: "developer", iteration: 2, consumedAt: new Date(T0 + 6000) });
    const rows = db
      .select()
      .from(contextPackageConsumers)
      .all()
      .filter((c) => c.packageId === p.researchHigh.id && c.agentType === "developer");
    expect(rows.map((c) => [c.iteration, c.consumedAt !== null])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(eventsOfType(db, "context_package.consumed")[0]?.data).toMatchObject({ created: true });
  });

  it("refuses a package that does not exist", () => {
    const { admin } = setup();
    expect(() => markContextConsumed(admin, { packageId: 12345, agentType: "developer" })).toThrow(NotFoundError);
  });
});
