/** Sections about outcomes: unverified completions, completion checks, stops held by the runtime hooks, goal attempts, token usage. */
import type { AnalyticsOverview } from "@/server/services/analytics/overview";
import { type Section, type ShapeContext, bucketColumn, emptyText } from "./section-kit";
import type { Cell, Column } from "./table";

const NOT_RECORDED = "not recorded";

export function outcomeSections(
  o: Pick<AnalyticsOverview, "unverifiedCompletions" | "completionChecks" | "runtimeStops" | "goalAttempts" | "tokens">,
  ctx: ShapeContext,
): Section[] {
  const uc = o.unverifiedCompletions;
  const cc = o.completionChecks;
  const ga = o.goalAttempts;
  const noChecks = emptyText(ctx, "completion checks", "A session's completion is checked with proofgate check-completion <session>.");
  const noAttempts = emptyText(ctx, "goal attempts", "Attempts at a goal are recorded with proofgate start-attempt.");
  const successColumns = [
    { label: "Attempts", kind: "count" as const },
    { label: "Successes", kind: "count" as const },
    { label: "Success rate", kind: "rate" as const },
  ];
  return [
    {
      id: "unverified",
      figure: "unverifiedCompletions",
      title: "Completions with no verification record",
      about:
        "Tasks completed with no verify move on record — reported by an observed orchestrator or imported from legacy data (BAZINGA's completed). Placed by completion time and by the claimant, else the assignee.",
      stats: [{ id: "unverified-count", label: "Unverified completions", value: uc.count, kind: "count" }],
      blocks: [
        {
          id: "unverified-by-source",
          title: "By session source",
          table: {
            columns: [
              { label: "Source", kind: "text" },
              { label: "Unverified completions", kind: "count" },
            ],
            rows: uc.bySource.map((r) => [r.source, r.count]),
          },
          chart: { type: "bar", x: 0, ys: [1] },
          empty: "",
        },
      ],
      empty:
        uc.count === 0
          ? ctx.filtered
            ? "No unverified completions for these filters: every completion here was verified."
            : "No unverified completions: every completion on record was verified."
          : null,
    },
    {
      id: "completion-checks",
      figure: "completionChecks",
      title: "Completion checks",
      about:
        "Runs of the completion gate and the verdicts orchestrators recorded, accepted or rejected, with the reasons rejected checks gave (grouped by kind, each check counted once per kind). Agent: who asked for the check.",
      stats: [
        { id: "checks-accepted", label: "Accepted", value: cc.accepted, kind: "count" },
        { id: "checks-rejected", label: "Rejected", value: cc.rejected, kind: "count" },
        { id: "checks-acceptance-rate", label: "Acceptance rate", value: cc.acceptanceRate, kind: "rate", detail: `of ${cc.total} checks` },
      ],
      blocks: [
        {
          id: "completion-checks-over-time",
          title: "Accepted and rejected over time",
          table: {
            columns: [bucketColumn(ctx.bucket), { label: "Accepted", kind: "count" }, { label: "Rejected", kind: "count" }],
            rows: cc.series.map((p) => [p.bucket, p.accepted, p.rejected]),
          },
          chart: { type: "stacked", x: 0, ys: [1, 2] },
          empty: noChecks,
        },
        {
          id: "completion-checks-top-reasons",
          title: "Top rejection reasons",
          table: {
            columns: [
              { label: "Reason", kind: "text" },
              { label: "Rejected checks", kind: "count" },
              { label: "Example", kind: "text" },
            ],
            rows: cc.topReasons.map((r) => [r.reason, r.checks, r.example]),
          },
          empty: "No check was rejected for these filters.",
        },
      ],
      empty: cc.total === 0 ? noChecks : null,
    },
    runtimeStopSection(o.runtimeStops, ctx),
    {
      id: "goal-attempts",
      figure: "goalAttempts",
      title: "Goal attempts",
      about:
        "Implementation attempts at goals (breakdowns into sub-goals are counted apart), numbered within their goal; success is a result of success. Placed by the attempt's start and its own model.",
      stats: [
        { id: "attempts-success-rate", label: "Success rate", value: ga.rate, kind: "rate", detail: `${ga.successes} of ${ga.attempts} attempts` },
        { id: "attempts-goals", label: "Goals attempted", value: ga.goals, kind: "count", detail: `${ga.goalsSucceeded} succeeded` },
        { id: "attempts-breakdowns", label: "Breakdowns", value: ga.breakdowns, kind: "count" },
      ],
      blocks: [
        {
          id: "goal-attempts-by-number",
          title: "Success rate by attempt number",
          table: {
            columns: [{ label: "Attempt", kind: "text" }, ...successColumns],
            rows: ga.byAttemptNumber.map((r) => [ordinal(r.attemptNumber), r.attempts, r.successes, r.rate]),
          },
          chart: { type: "bar", x: 0, ys: [3] },
          empty: noAttempts,
        },
        {
          id: "goal-attempts-by-model",
          title: "Success rate by model",
          table: {
            columns: [{ label: "Model", kind: "text" }, ...successColumns],
            rows: ga.byModel.map((r) => [r.model ?? NOT_RECORDED, r.attempts, r.successes, r.rate]),
          },
          chart: { type: "bar", x: 0, ys: [3] },
          empty: noAttempts,
        },
        {
          id: "goal-attempts-per-goal",
          title: "Attempts per goal",
          table: {
            columns: [
              { label: "Attempts", kind: "text" },
              { label: "Goals", kind: "count" },
            ],
            rows: ga.attemptsPerGoal.map((r) => [r.attempts === 1 ? "1 attempt" : `${r.attempts} attempts`, r.goals]),
          },
          chart: { type: "bar", x: 0, ys: [1] },
          empty: noAttempts,
        },
        {
          id: "goal-attempts-outcomes",
          title: "Outcomes",
          table: {
            columns: [
              { label: "Outcome", kind: "text" },
              { label: "Attempts", kind: "count" },
            ],
            rows: ga.outcomes.map((r) => [r.outcome.replaceAll("_", " "), r.count]),
          },
          chart: { type: "bar", x: 0, ys: [1] },
          empty: noAttempts,
        },
      ],
      empty: ga.attempts === 0 && ga.breakdowns === 0 ? noAttempts : null,
    },
    tokenSection(o.tokens, ctx),
  ];
}

function runtimeStopSection(r: AnalyticsOverview["runtimeStops"], ctx: ShapeContext): Section {
  const noStops = emptyText(ctx, "held or unverified stops", "They come from an agent runtime's hooks: proofgate init claude-code wires them.");
  return {
    id: "runtime-stops",
    figure: "runtimeStops",
    title: "Stops held by the completion gate",
    about:
      "An agent runtime's stops (Claude Code's Stop and SubagentStop hooks) while a linked session's completion gate rejected: held (the agent was sent back to work), or let through with the gate rejected (after the cap of held stops in a row, or another hook's continuation). Counted once per session the stop concerned, placed by the stop's time. Agent: who ran the hook.",
    stats: [
      { id: "runtime-stops-held", label: "Stops held", value: r.held, kind: "count" },
      {
        id: "runtime-stops-unverified",
        label: "Stopped with the gate rejected",
        value: r.unverified,
        kind: "count",
        detail: `in ${r.sessionsUnverified} ${r.sessionsUnverified === 1 ? "session" : "sessions"}`,
      },
    ],
    blocks: [
      {
        id: "runtime-stops-over-time",
        title: "Held and unverified stops over time",
        table: {
          columns: [bucketColumn(ctx.bucket), { label: "Stops held", kind: "count" }, { label: "Stopped with the gate rejected", kind: "count" }],
          rows: r.series.map((p) => [p.bucket, p.held, p.unverified]),
        },
        chart: { type: "stacked", x: 0, ys: [1, 2] },
        empty: noStops,
      },
    ],
    empty: r.held === 0 && r.unverified === 0 ? noStops : null,
  };
}

function tokenSection(t: AnalyticsOverview["tokens"], ctx: ShapeContext): Section {
  const types = t.byAgentType.map((r) => r.agentType);
  const overTime: Column[] = [bucketColumn(ctx.bucket), ...types.map((type) => ({ label: type, kind: "count" as const })), { label: "Total", kind: "count" }];
  const noTokens = emptyText(ctx, "token usage", "Agents record it with proofgate log-tokens.");
  return {
    id: "tokens",
    figure: "tokens",
    title: "Token usage",
    about: "Estimated tokens by agent type, per bucket. Agent: the row's agent id; model: the row's own.",
    stats: [{ id: "tokens-total", label: "Tokens", value: t.tokens, kind: "count" }],
    blocks: [
      {
        id: "tokens-over-time",
        title: "By agent type over time",
        table: { columns: overTime, rows: t.series.map((p): Cell[] => [p.bucket, ...types.map((type) => p.byAgentType[type] ?? 0), p.tokens]) },
        chart: { type: "stacked", x: 0, ys: types.map((_, i) => i + 1) },
        empty: noTokens,
      },
      {
        id: "tokens-by-agent-type",
        title: "By agent type",
        table: {
          columns: [
            { label: "Agent type", kind: "text" },
            { label: "Tokens", kind: "count" },
          ],
          rows: t.byAgentType.map((r) => [r.agentType, r.tokens]),
        },
        chart: { type: "bar", x: 0, ys: [1] },
        empty: noTokens,
      },
    ],
    empty: t.tokens === 0 ? noTokens : null,
  };
}

/** 1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd". */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : (({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th");
  return `${n}${suffix}`;
}
