import { queryAll, queryGet } from "@/db/query";
import { describe, expect, it } from "vitest";
import { decisions, events, skillOutputs } from "@/db/schema";
import { getDevelopmentPlan } from "./get-development-plan";
import { getLatestState } from "./get-state";
import { ingestBatch } from "./ingest-batch";
import { listLogs } from "./list-logs";
import { logInteraction } from "./log-interaction";
import { saveDecision } from "./save-decision";
import { saveDevelopmentPlan } from "./save-development-plan";
import { saveEvent } from "./save-event";
import { saveReasoning } from "./save-reasoning";
import { saveSkillOutput } from "./save-skill-output";
import { saveState } from "./save-state";
import { SECRETS, SESSION, setup } from "@/test/support/log-helpers";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const { openaiKey, githubToken, awsKeyId, jwt, pem } = SECRETS;

const CASES: [string, string, string][] = [
  ["an api_key=sk-… assignment", `export api_key=${openaiKey} now`, "export api_key=[REDACTED:openai_key] now"],
  ["a GitHub token", `git push https://${githubToken}@github.com/o/r`, "git push https://[REDACTED:github_token]@github.com/o/r"],
  ["an AWS access key id", `aws id ${awsKeyId} in env`, "aws id [REDACTED:aws_access_key_id] in env"],
  ["a bearer token", `curl -H "Authorization: Bearer ${jwt}"`, 'curl -H "Authorization: Bearer [REDACTED:bearer_token]"'],
  ["a PEM private key block", `key:\n${pem}\ndone`, "key:\n[REDACTED:private_key]\ndone"],
];

describeEngines("log redaction", (engine) => {
  describe("redaction on the way in", () => {
    it.each(CASES)("interaction content with %s is stored redacted and flagged", async (_name, raw, stored) => {
      const { admin } = await setup(await freshLedger(engine));
      const row = await logInteraction(admin, { sessionId: SESSION, agentType: "developer", content: raw });
      expect(row.content).toBe(stored);
      expect(row.redacted).toBe(true);
    });

    it.each(CASES)("reasoning content with %s is stored redacted and flagged", async (_name, raw, stored) => {
      const { admin } = await setup(await freshLedger(engine));
      const row = await saveReasoning(admin, { sessionId: SESSION, agentType: "developer", phase: "risks", content: raw });
      expect(row).toMatchObject({ content: stored, redacted: true });
    });

    it("leaves ordinary text byte for byte and unflagged", async () => {
      const { admin } = await setup(await freshLedger(engine));
      const text = "Ran 42 tests; max_tokens=4096; the token bucket refills; see docs/api-keys.md — all green ✓";
      const row = await logInteraction(admin, { sessionId: SESSION, agentType: "qa_expert", content: text });
      expect(row).toMatchObject({ content: text, redacted: false });
      const reasoning = await saveReasoning(admin, {
        sessionId: SESSION,
        agentType: "qa_expert",
        phase: "completion",
        content: text,
        references: ["src/token-bucket.ts"],
      });
      expect(reasoning).toMatchObject({ content: text, referencesJson: ["src/token-bucket.ts"], redacted: false });
    });

    it("redacts reasoning references and flags the row even when the content is clean", async () => {
      const { admin } = await setup(await freshLedger(engine));
      const row = await saveReasoning(admin, {
        sessionId: SESSION,
        agentType: "developer",
        phase: "approach",
        content: "Read the deploy script",
        references: [`https://${githubToken}@github.com/o/r`, "scripts/deploy.sh"],
      });
      expect(row.referencesJson).toEqual(["https://[REDACTED:github_token]@github.com/o/r", "scripts/deploy.sh"]);
      expect(row.redacted).toBe(true);
    });

    it("redacts event payloads (values and secret-named keys) and flags the row", async () => {
      const { admin } = await setup(await freshLedger(engine));
      const { row } = await saveEvent(admin, {
        sessionId: SESSION,
        subtype: "tl_review",
        payload: { note: `used ${awsKeyId}`, password: "hunter2", count: 3 },
      });
      expect(JSON.parse(row.eventPayload!)).toEqual({ note: "used [REDACTED:aws_access_key_id]", password: "[REDACTED:password]", count: 3 });
      expect(row.content).toBe("Event: tl_review");
      expect(row.redacted).toBe(true);
      const clean = await saveEvent(admin, { sessionId: SESSION, subtype: "tl_review", payload: { note: "approved", count: 3 } });
      expect(clean.row.redacted).toBe(false);
    });

    it("redacts state JSON given as text and as a value; the event says so", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await saveState(admin, {
        sessionId: SESSION,
        stateType: "orchestrator",
        data: JSON.stringify({ env: `OPENAI_API_KEY=${openaiKey}`, phase: "development" }),
      });
      expect((await getLatestState(db, { sessionId: SESSION, stateType: "orchestrator" }))?.data).toEqual({
        env: "OPENAI_API_KEY=[REDACTED:openai_key]",
        phase: "development",
      });
      await saveState(admin, { sessionId: SESSION, stateType: "pm", data: { notes: [pem], iteration: 2 } });
      expect((await getLatestState(db, { sessionId: SESSION, stateType: "pm" }))?.data).toEqual({ notes: ["[REDACTED:private_key]"], iteration: 2 });
      expect((await queryAll(db.select({ data: events.data }).from(events))).filter((e) => e.data?.stateType).map((e) => e.data?.redacted)).toEqual([
        true,
        true,
      ]);
    });

    it("redacts skill outputs, decisions and development plans", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await saveSkillOutput(admin, { sessionId: SESSION, skillName: "security_scan", data: { finding: `token in ${githubToken}` } });
      await saveDecision(admin, { sessionId: SESSION, decisionType: "spawn_agent", data: { header: `Bearer ${jwt}` } });
      await saveDevelopmentPlan(admin, {
        sessionId: SESSION,
        originalPrompt: `deploy with api_key=${openaiKey}`,
        planText: "Phase 1: deploy",
        phases: [{ phase: 1, name: "deploy", secret: "s3cr3t-value" }],
      });
      expect(JSON.parse((await queryGet(db.select().from(skillOutputs)))!.outputData)).toEqual({ finding: "token in [REDACTED:github_token]" });
      expect(JSON.parse((await queryGet(db.select().from(decisions)))!.decisionData)).toEqual({ header: "Bearer [REDACTED:bearer_token]" });
      const plan = await getDevelopmentPlan(db, { sessionId: SESSION });
      expect(plan?.originalPrompt).toBe("deploy with api_key=[REDACTED:openai_key]");
      expect(plan?.phases).toEqual([{ phase: 1, name: "deploy", status: "pending", secret: "[REDACTED:secret]" }]);
    });

    it("redacts every row of a batch and counts the flagged ones", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      const result = await ingestBatch(admin, {
        sessionId: SESSION,
        rows: [
          { kind: "interaction", agentType: "developer", content: `export api_key=${openaiKey}` },
          { kind: "interaction", agentType: "developer", content: "plain progress note" },
          { kind: "event", subtype: "qa_result", payload: { auth: `Bearer ${jwt}` } },
        ],
      });
      expect(result.logs.redacted).toBe(2);
      const rows = (await listLogs(db, { sessionId: SESSION, order: "asc" })).items;
      expect(rows.map((r) => [r.content, r.redacted])).toEqual([
        ["export api_key=[REDACTED:openai_key]", true],
        ["plain progress note", false],
        ["Event: qa_result", true],
      ]);
      expect(rows[2]?.eventPayload).toEqual({ auth: "Bearer [REDACTED:bearer_token]" });
    });
  });
});
