import { queryAll } from "@/db/query";
import { describe, expect, it } from "vitest";
import { contextPackageConsumers } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { getContextPackages } from "./get-context-packages";
import { markContextConsumed } from "./mark-context-consumed";
import { saveContextPackage } from "./save-context-package";
import type { SaveContextPackageInput } from "./schemas";
import { SESSION, T0, eventsOfType, setup } from "@/test/support/log-helpers";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

type PackageInput = Omit<SaveContextPackageInput, "sessionId" | "filePath" | "producerAgent" | "summary">;

async function seed(engine: Engine) {
  const fixture = await setup(await freshLedger(engine));
  const { admin, setClock } = fixture;
  let second = 0;
  const save = async (input: PackageInput) => {
    setClock(1000 * second++);
    return (
      await saveContextPackage(admin, {
        sessionId: SESSION,
        filePath: `bazinga/artifacts/${SESSION}/ctx-${second}.md`,
        producerAgent: "requirements_engineer",
        summary: `package ${second}`,
        ...input,
      })
    ).package;
  };
  const p = {
    researchHigh: await save({ groupId: "group_a", packageType: "research", priority: "high", consumers: ["developer", "qa_expert"] }),
    globalCritical: await save({ packageType: "decisions", priority: "critical", consumers: ["developer"] }),
    failuresV1: await save({ groupId: "group_a", packageType: "failures", consumers: ["Developer"] }),
    otherGroup: await save({ groupId: "group_b", packageType: "handoff", priority: "critical", consumers: ["developer"] }),
    newerHigh: await save({ groupId: "group_a", packageType: "research", priority: "high", consumers: ["developer"] }),
    notForDevelopers: await save({ groupId: "group_a", packageType: "research", priority: "low", consumers: ["tech_lead"] }),
  };
  const failuresV2 = await save({ groupId: "group_a", packageType: "failures", consumers: ["developer"], supersedesId: p.failuresV1.id });
  return { ...fixture, p: { ...p, failuresV2 } };
}

const route = async (db: Parameters<typeof getContextPackages>[0], extra: { limit?: number; includeConsumed?: boolean } = {}) =>
  getContextPackages(db, { sessionId: SESSION, groupId: "group_a", agentType: "developer", ...extra });

describeEngines("log context-packages", (engine) => {
  describe("saveContextPackage", () => {
    it("stores the package and one pending consumer row per agent type; global when no group", async () => {
      const { db, p } = await seed(engine);
      expect(p.globalCritical).toMatchObject({ groupId: null, scope: "global", priority: "critical", version: 1 });
      expect(p.researchHigh).toMatchObject({ groupId: "group_a", scope: "group", producerAgent: "requirements_engineer" });
      expect(p.failuresV2).toMatchObject({ version: 2, supersedesId: p.failuresV1.id, priority: "medium" });
      const consumers = (await queryAll(db.select().from(contextPackageConsumers))).filter(
        (c) => c.packageId === p.researchHigh.id || c.packageId === p.failuresV1.id,
      );
      expect(consumers.map((c) => [c.packageId, c.agentType, c.iteration, c.consumedAt])).toEqual([
        [p.researchHigh.id, "developer", 1, null],
        [p.researchHigh.id, "qa_expert", 1, null],
        [p.failuresV1.id, "developer", 1, null],
      ]);
      expect(await eventsOfType(db, "context_package.saved")).toHaveLength(7);
    });

    it("keeps the summary to one line of at most 200 characters", async () => {
      const { admin } = await setup(await freshLedger(engine));
      const { package: pkg } = await saveContextPackage(admin, {
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

    it("refuses to supersede a package that is not in the session", async () => {
      const { admin } = await setup(await freshLedger(engine));
      await expect(
        saveContextPackage(admin, {
          sessionId: SESSION,
          packageType: "research",
          filePath: "f.md",
          producerAgent: "investigator",
          consumers: ["developer"],
          summary: "s",
          supersedesId: 999,
        }),
      ).rejects.toThrow(expect.objectContaining({ field: "supersedesId", rule: "context.supersedes_unknown" }));
    });
  });

  describe("getContextPackages", () => {
    it("ranks the group's and global packages for the agent by priority, then newest; hides superseded, other groups, other agents", async () => {
      const { db, p } = await seed(engine);
      expect((await route(db, { limit: 10 })).map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.newerHigh.id, p.researchHigh.id, p.failuresV2.id]);
      expect((await route(db)).map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.newerHigh.id, p.researchHigh.id]);
      expect((await route(db))[0]).toMatchObject({ pending: true, consumedAt: null });
    });

    it("drops consumed packages unless asked, and then shows when they were consumed", async () => {
      const { db, admin, setClock, p } = await seed(engine);
      setClock(60_000);
      await markContextConsumed(admin, { packageId: p.newerHigh.id, agentType: "developer" });
      expect((await route(db, { limit: 10 })).map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.researchHigh.id, p.failuresV2.id]);
      const all = await route(db, { limit: 10, includeConsumed: true });
      expect(all.map((pkg) => pkg.id)).toEqual([p.globalCritical.id, p.newerHigh.id, p.researchHigh.id, p.failuresV2.id]);
      expect(all[1]).toMatchObject({ pending: false, consumedAt: new Date(T0 + 60_000) });
    });
  });

  describe("markContextConsumed", () => {
    it("sets consumed_at on the consumer row, once, and appends one event", async () => {
      const { db, admin, setClock, p } = await seed(engine);
      setClock(60_000);
      const row = await markContextConsumed(admin, { packageId: p.researchHigh.id, agentType: "QA_Expert" });
      expect(row).toMatchObject({ agentType: "qa_expert", iteration: 1, consumedAt: new Date(T0 + 60_000) });
      setClock(120_000);
      expect(await markContextConsumed(admin, { packageId: p.researchHigh.id, agentType: "qa_expert" })).toEqual(row);
      expect(await eventsOfType(db, "context_package.consumed")).toMatchObject([
        { entityId: String(p.researchHigh.id), data: { agentType: "qa_expert", iteration: 1, created: false } },
      ]);
    });

    it("creates the consumer row for a new iteration", async () => {
      const { db, admin, p } = await seed(engine);
      const row = await markContextConsumed(admin, { packageId: p.researchHigh.id, agentType: "developer", iteration: 2 });
      expect(row).toMatchObject({ agentType: "developer", iteration: 2, consumedAt: new Date(T0 + 6000) });
      const rows = (await queryAll(db.select().from(contextPackageConsumers))).filter((c) => c.packageId === p.researchHigh.id && c.agentType === "developer");
      expect(rows.map((c) => [c.iteration, c.consumedAt !== null])).toEqual([
        [1, false],
        [2, true],
      ]);
      expect((await eventsOfType(db, "context_package.consumed"))[0]?.data).toMatchObject({ created: true });
    });

    it("refuses a package that does not exist", async () => {
      const { admin } = await setup(await freshLedger(engine));
      await expect(markContextConsumed(admin, { packageId: 12345, agentType: "developer" })).rejects.toThrow(NotFoundError);
    });
  });
});
