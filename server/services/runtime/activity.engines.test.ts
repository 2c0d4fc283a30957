import { describe, expect, it } from "vitest";
import { callerFor, expectNotFound, setup } from "@/test/support/api-helpers";
import { operatorActor } from "@/server/domain/actors";
import { handleClaudeCodeHook } from "./hook";
import { RUNTIME_ID, sessionStart, stop, subagentStop } from "./test-payloads";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

describeEngines("activity", (engine) => {
  describe("runtime.activity: what the session page shows of its runtime session", () => {
    it("gives a viewer the linked runtime session, each held stop with the reasons and fixes given, and each stop let through unverified", async () => {
      const f = setup(await freshLedger(engine));
      const hook = { db: f.db, actor: operatorActor("claude") };
      await handleClaudeCodeHook(hook, sessionStart());
      // The runtime session's owner (the principal that sent its SessionStart) links the session.
      await callerFor(f.db, hook.actor, { runtimeSession: { runtime: "claude-code", externalId: RUNTIME_ID } }).session.create({ id: "s1" });
      await f.as("orchestrator").session.create({ id: "s_unlinked" });
      await handleClaudeCodeHook(hook, stop(false), { maxBlocks: 1 });
      await handleClaudeCodeHook(hook, stop(true), { maxBlocks: 1 });
      await handleClaudeCodeHook(hook, subagentStop(false), { maxBlocks: 1 });

      const activity = await f.as("viewer").runtime.activity({ sessionId: "s1" });
      expect(activity.runtimeSessions).toEqual([
        {
          runtime: "claude-code",
          externalId: RUNTIME_ID,
          cwd: "/home/dev/app",
          source: "startup",
          firstSeenAt: expect.any(Date),
          lastSeenAt: expect.any(Date),
          linkedAt: expect.any(Date),
        },
      ]);
      expect(activity.stops.map((s) => [s.kind, s.event, s.block, s.cause])).toEqual([
        ["held", "SubagentStop", 1, null],
        ["unverified", "Stop", null, "max_blocks"],
        ["held", "Stop", 1, null],
      ]);
      expect(activity.stops[2]!.reasons).toEqual(["No required success criteria recorded: save the session's criteria before claiming completion"]);
      expect(activity.stops[2]!.fixes[0]).toContain("proofgate save-success-criteria s1");
      expect(await f.as("viewer").runtime.activity({ sessionId: "s_unlinked" })).toEqual({ runtimeSessions: [], stops: [] });
      await expectNotFound(f.as("viewer").runtime.activity({ sessionId: "nope" }));
    });
  });
});
