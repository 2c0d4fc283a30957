import { describe, expect, it } from "vitest";
import { InboxCountInput, InboxInput } from "@/server/services/approvals/schemas";
import { DEFAULT_VIEW, PAGE_SIZE, hasFilters, inboxHref, parseInboxView, toCountInput, toInboxInput } from "./inbox-view";

describe("the /approvals address", () => {
  it("reads every filter and writes them back to the same address", () => {
    const href = "/approvals?session=s1&source=bazinga&age=1d&reset=requested&blockedBy=qa_expert_1";
    const { view, problems } = parseInboxView(new URL(href, "http://x").searchParams);
    expect(problems).toEqual([]);
    expect(view).toEqual({ session: "s1", source: "bazinga", age: "1d", reset: "requested", blockedBy: "qa_expert_1" });
    expect(inboxHref(view)).toBe(href);
    expect(hasFilters(view)).toBe(true);
  });

  it("leaves defaults out", () => {
    expect(inboxHref(DEFAULT_VIEW)).toBe("/approvals");
    expect(hasFilters(DEFAULT_VIEW)).toBe(false);
    expect(inboxHref({ ...DEFAULT_VIEW, blockedBy: "lead@example.com" })).toBe("/approvals?blockedBy=lead%40example.com");
  });

  it("ignores what is invalid, naming the parameter and the rule", () => {
    const { view, problems } = parseInboxView({ session: "a b", source: "cron", age: "2d", reset: "maybe", blockedBy: "x".repeat(201) });
    expect(view).toEqual(DEFAULT_VIEW);
    expect(problems).toEqual([
      'session: may contain only letters, digits and . _ : - (got "a b")',
      'source: must be one of api, demo, bazinga, shots-on-goal (got "cron")',
      'age: must be one of 1h, 4h, 1d, 3d, 7d (got "2d")',
      'reset: must be requested or none (got "maybe")',
      "blockedBy: must be at most 200 characters (got 201)",
    ]);
    // An inherited name is not an age.
    expect(parseInboxView({ age: "toString" }).problems).toEqual(['age: must be one of 1h, 4h, 1d, 3d, 7d (got "toString")']);
  });

  it("asks the API what the view says, in inputs its schemas accept", () => {
    const view = { session: "s1", source: "demo", age: "3d", reset: "none", blockedBy: "verifier_1" } as const;
    expect(toCountInput(view)).toEqual({ sessionId: "s1", source: "demo", minAgeHours: 72, resetRequested: false, blockedBy: "verifier_1" });
    expect(toInboxInput(view)).toEqual({ ...toCountInput(view), limit: PAGE_SIZE });
    expect(toInboxInput(DEFAULT_VIEW)).toEqual({ limit: 20 });
    expect(InboxInput.safeParse(toInboxInput(view)).success).toBe(true);
    expect(InboxCountInput.safeParse(toCountInput(view)).success).toBe(true);
    expect(toCountInput({ ...DEFAULT_VIEW, reset: "requested" })).toEqual({ resetRequested: true });
  });
});
