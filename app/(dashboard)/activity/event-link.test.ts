import { describe, expect, it } from "vitest";
import { type LinkableEvent, eventLink } from "./event-link";

const ev = (e: Partial<LinkableEvent>): LinkableEvent => ({ type: "x", entity: "session", entityId: null, sessionId: "s1", data: null, ...e });

describe("what an audit-log row links to", () => {
  it.each([
    ["a session's event: the session", ev({ type: "session.created", entityId: "s1" }), "/sessions/s1"],
    [
      "a task's move: its card on the session's board",
      ev({ type: "task.claimed", entity: "task", entityId: "4", data: { key: "group_a" } }),
      "/sessions/s1#task-group_a",
    ],
    ["a criterion: the criteria section", ev({ type: "criterion.updated", entity: "criterion", entityId: "2" }), "/sessions/s1#criteria-heading"],
    ["a completion check: the checks section", ev({ type: "completion.checked", entity: "completion_check", entityId: "3" }), "/sessions/s1#checks-heading"],
    ["a goal: the goals tab at the goal", ev({ type: "goal.created", entity: "goal", entityId: "7" }), "/sessions/s1/goals#goal-7-title"],
    [
      "an attempt naming its goal: the goals tab at the goal",
      ev({ type: "attempt.started", entity: "attempt", entityId: "2", data: { goalId: 7 } }),
      "/sessions/s1/goals#goal-7-title",
    ],
    ["an attempt alone: the goals tab", ev({ type: "attempt.finished", entity: "attempt", entityId: "2" }), "/sessions/s1/goals"],
    ["logs: the logs tab", ev({ type: "logs.appended", entity: "log" }), "/sessions/s1/logs"],
    ["tokens: the tokens tab", ev({ type: "tokens.logged", entity: "token_usage" }), "/sessions/s1/tokens"],
    ["a session id that needs escaping", ev({ sessionId: "a:b", entity: "decision" }), "/sessions/a%3Ab/logs"],
  ])("%s", (_name, event, href) => {
    expect(eventLink(event, "viewer")?.href).toBe(href);
  });

  it("links users and tokens to Settings for admins only, and nothing outside a session", () => {
    const token = ev({ type: "admin.token_created", entity: "api_token", sessionId: null });
    expect(eventLink(token, "admin")).toEqual({ href: "/settings", label: "Settings" });
    expect(eventLink(token, "lead")).toBeNull();
    const webhook = ev({ type: "admin.webhook_created", entity: "webhook", sessionId: null });
    expect(eventLink(webhook, "admin")).toEqual({ href: "/settings/webhooks", label: "webhooks in Settings" });
    expect(eventLink(webhook, "lead")).toBeNull();
    expect(eventLink(ev({ type: "purge.finished", entity: "purge", sessionId: null }), "admin")).toBeNull();
  });
});
