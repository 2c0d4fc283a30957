import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY,
  dashboardLink,
  nextAttemptAt,
  resolvedAddressProblem,
  slackMessage,
  webhookEventOf,
  webhookSecretProblem,
  webhookTargetProblem,
  webhookUrlProblem,
} from "./webhooks";

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
    // The URL's form only: where it points is webhookTargetProblem's rule.
    expect(webhookUrlProblem("http://127.0.0.1:8080/hook")).toBeNull();
    expect(webhookUrlProblem("javascript:alert(1)")).toMatch(/http or https/);
    expect(webhookUrlProblem("/relative")).toMatch(/absolute/);
    expect(webhookUrlProblem("https://user:pw@example.com/")).toMatch(/user name or password/);
  });
  it("refuses a receiver written as a loopback, private, link-local or unique-local address, in any spelling, unless allowed", () => {
    const refused = {
      "http://127.0.0.1:8080/hook": "127.0.0.1, a loopback address",
      "http://0x7f.1/hook": "127.0.0.1, a loopback address",
      "http://2130706433/hook": "127.0.0.1, a loopback address",
      "http://0/hook": "0.0.0.0, an unspecified address",
      "https://10.1.2.3/hook": "10.1.2.3, a private address",
      "https://192.168.0.10/hook": "192.168.0.10, a private address",
      "https://172.20.0.1/hook": "172.20.0.1, a private address",
      "https://100.64.1.1/hook": "100.64.1.1, a carrier-grade NAT address",
      "http://169.254.169.254/latest/meta-data/": "169.254.169.254, a cloud metadata address",
      "http://169.254.1.1/": "169.254.1.1, a link-local address",
      "http://[::1]:3000/hook": "::1, a loopback address",
      "http://[::]/hook": "::, an unspecified address",
      "http://[fd00::1]/hook": "fd00::1, a unique-local address",
      "http://[fe80::1]/hook": "fe80::1, a link-local address",
      "http://[::ffff:127.0.0.1]/hook": "::ffff:7f00:1, a loopback address",
      "http://[::ffff:a9fe:a9fe]/hook": "::ffff:a9fe:a9fe, a cloud metadata address",
      "http://localhost:3000/hook": "localhost, a loopback name",
      "http://api.localhost./hook": "api.localhost., a loopback name",
    };
    for (const [url, what] of Object.entries(refused)) {
      expect(webhookTargetProblem(url, false)).toBe(
        `must not point to ${what}: webhooks reach public addresses only (PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1 on the server allows private ones)`,
      );
      expect(webhookTargetProblem(url, true)).toBeNull();
    }
    // Names are judged after resolution, at delivery; public addresses pass.
    for (const url of ["https://hooks.slack.com/services/T/B/x", "https://internal.example/hook", "http://93.184.215.14/", "http://[2606:4700::1111]/"])
      expect(webhookTargetProblem(url, false)).toBeNull();
  });
  it("refuses a delivery when any address the receiver's name resolved to may not be reached, naming its kind, never the address", () => {
    expect(resolvedAddressProblem("hooks.example.com", ["93.184.215.14", "2606:4700::1111"], false)).toBeNull();
    expect(resolvedAddressProblem("hooks.example.com", ["93.184.215.14", "10.0.0.7"], false)).toBe(
      "refused: hooks.example.com resolves to a private address; webhooks reach public addresses only (PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1 on the server allows private ones)",
    );
    expect(resolvedAddressProblem("rebind.example", ["::ffff:127.0.0.1"], false)).toMatch(/^refused: rebind\.example resolves to a loopback address;/);
    expect(resolvedAddressProblem("meta.example", ["169.254.169.254"], false)).toMatch(/a cloud metadata address/);
    expect(resolvedAddressProblem("v6.example", ["fe80::1%eth0"], false)).toMatch(/a link-local address/);
    expect(resolvedAddressProblem("localhost", ["93.184.215.14"], false)).toMatch(/^refused: localhost is a loopback name/);
    for (const allowPrivate of [true, false])
      expect(resolvedAddressProblem("nothing.example", [], allowPrivate)).toBe("nothing.example resolved to no address");
    expect(resolvedAddressProblem("hooks.example.com", ["127.0.0.1", "10.0.0.7"], true)).toBeNull();
    expect(resolvedAddressProblem("hooks.example.com", ["10.0.0.7"], false)).not.toContain("10.0.0.7");
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
