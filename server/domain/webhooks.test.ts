import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, dashboardLink, nextAttemptAt, slackMessage, webhookEventOf, webhookSecretProblem, webhookUrlProblem } from "./webhooks";

describe("webhookEventOf", () => {
  it("maps the ledger events a lead is told about, and nothing else", () => {
    expect(webhookEventOf("task.blocked", { key: "t1" })).toBe("task.blocked");
    expect(webhookEventOf("task.reset_declined", null)).toBe("task.reset_declined");
    expect(webhookEventOf("completion.checked", { accepted: false })).toBe("completion.rejected");
    expect(webhookEventOf("completion.checked", { accepted: true })).toBeNull();
    expect(webhookEventOf("session.status_changed", { from: "active", to: "completed" })).toBe("session.completed");
    expect(webhookEventOf("session.status_changed", { from: "active", to: "failed" })).toBe("session.failed");
    expect(webhookEventOf("session.status_changed", { from: "completed", to: "active" })).toBeNull();
    expect(webhookEventOf("runtime.stop_released", {})).toBeNull();
    expect(webhookEventOf("task.claimed", {})).toBeNull();
  });
});

describe("nextAttemptAt", () => {
  it("doubles the wait from the base up to the cap, and gives up past the window", () => {
    const p = { baseMs: 1_000, maxMs: 5_000, giveUpAfterMs: 20_000 };
    expect([1, 2, 3, 4, 5].map((n) => nextAttemptAt(p, n, 0, 0))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(nextAttemptAt(p, 3, 0, 15_000)).toBe(19_000);
    expect(nextAttemptAt(p, 3, 0, 17_000)).toBeNull();
    expect(DEFAULT_RETRY.giveUpAfterMs).toBe(24 * 3_600_000);
  });
});

describe("checks at creation", () => {
  it("accepts http and https URLs only", () => {
    expect(webhookUrlProblem("https://hooks.slack.com/services/T/B/x")).toBeNull();
    expect(webhookUrlProblem("http://127.0.0.1:8080/hook")).toBeNull();
    expect(webhookUrlProblem("javascript:alert(1)")).toMatch(/http or https/);
    expect(webhookUrlProblem("/relative")).toMatch(/absolute/);
    expect(webhookUrlProblem("https://user:pw@example.com/")).toMatch(/user name or password/);
  });
  it("accepts Standard Webhooks secrets only", () => {
    expect(webhookSecretProblem(`whsec_${Buffer.alloc(32, 7).toString("base64")}`)).toBeNull();
    expect(webhookSecretProblem("secret")).toMatch(/whsec_/);
    expect(webhookSecretProblem("whsec_****")).toMatch(/base64/);
    expect(webhookSecretProblem("whsec_YWJj")).toMatch(/24 to 64 bytes/);
  });
});

describe("dashboardLink", () => {
  it("points at the task's card, else the session, and needs a base URL", () => {
    expect(dashboardLink("https://pg.example.com/", { sessionId: "s 1", entity: "task", data: { key: "a/b" } })).toBe(
      "https://pg.example.com/sessions/s%201#task-a%2Fb",
    );
    expect(dashboardLink("https://pg.example.com", { sessionId: "s1", entity: "session", data: null })).toBe("https://pg.example.com/sessions/s1");
    expect(dashboardLink(undefined, { sessionId: "s1", entity: "session", data: null })).toBeNull();
  });
});

describe("slackMessage (issue 30: mrkdwn injection)", () => {
  const hostile = {
    id: 9,
    at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
    type: "task.blocked",
    sessionId: "s<!here>",
    entity: "task",
    entityId: "1",
    actor: "dev <@U123>",
    role: "agent",
    data: { key: "<https://evil.example|Open in Proofgate>", reason: "R&D <!channel>" },
  };

  it("escapes & < > in every piece of agent-provided text, per Slack's escaping rules", () => {
    const message = slackMessage("task.blocked", hostile, "https://proofgate.example");
    // Nothing in the text or the blocks may open a Slack link, mention or command.
    expect(JSON.stringify(message)).not.toMatch(/[<>]/);
    expect(message.text).toContain("task &lt;https://evil.example|Open in Proofgate&gt; in session s&lt;!here&gt; (by dev &lt;@U123&gt;)");
    expect(JSON.stringify(message)).toContain("Reason: R&amp;D &lt;!channel&gt;");
  });

  it("leaves ordinary text as it was", () => {
    const message = slackMessage("task.blocked", { ...hostile, sessionId: "s1", actor: "developer_1", data: { key: "t1", reason: "tests fail" } }, undefined);
    expect(message.text).toBe("Proofgate: a task was blocked — task t1 in session s1 (by developer_1)");
  });
});
