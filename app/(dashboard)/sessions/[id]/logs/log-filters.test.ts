import { describe, expect, it } from "vitest";
import { LOG_PAGE_SIZE, logFiltersQuery, logListInput, readLogFilters } from "./log-filters";

describe("readLogFilters", () => {
  it("reads every filter from the URL", () => {
    expect(readLogFilters(new URLSearchParams("agent=developer&type=reasoning&phase=approach&q=JWT%20middleware"))).toEqual({
      agent: "developer",
      type: "reasoning",
      phase: "approach",
      q: "JWT middleware",
    });
  });

  it("drops an unknown type or phase instead of sending it, and blank text", () => {
    expect(readLogFilters({ type: "bogus", phase: "dreaming", agent: "  ", q: "" })).toEqual({});
  });

  it("keeps a phase only for reasoning rows", () => {
    expect(readLogFilters({ type: "interaction", phase: "approach" })).toEqual({ type: "interaction" });
    expect(readLogFilters({ phase: "risks" })).toEqual({ phase: "risks" });
  });

  it("trims text to what the API takes and uses the first of repeated parameters", () => {
    expect(readLogFilters({ q: ` ${"x".repeat(300)} ` }).q).toHaveLength(200);
    expect(readLogFilters({ agent: ["qa_expert", "developer"] })).toEqual({ agent: "qa_expert" });
  });
});

describe("logFiltersQuery and logListInput", () => {
  it("round-trips through the URL", () => {
    const filters = { agent: "developer", type: "reasoning" as const, phase: "approach" as const, q: "a&b" };
    const query = logFiltersQuery(filters);
    expect(query).toBe("?agent=developer&type=reasoning&phase=approach&q=a%26b");
    expect(readLogFilters(new URLSearchParams(query.slice(1)))).toEqual(filters);
    expect(logFiltersQuery({})).toBe("");
  });

  it("maps the filters onto log.list's input, unfiltered fields left out", () => {
    expect(logListInput("s1", { agent: "developer", q: "jwt" })).toEqual({ sessionId: "s1", limit: LOG_PAGE_SIZE, agentType: "developer", text: "jwt" });
    expect(logListInput("s1", { type: "reasoning", phase: "pivot" })).toEqual({
      sessionId: "s1",
      limit: LOG_PAGE_SIZE,
      logType: "reasoning",
      reasoningPhase: "pivot",
    });
  });
});
