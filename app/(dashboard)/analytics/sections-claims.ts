/** Sections about criteria and about task claims: criteria completion, false completions, verification latency, time blocked. */
import type { AnalyticsOverview } from "@/server/services/analytics/overview";
import type { CriteriaFigures } from "@/server/services/analytics/criteria";
import { type Section, type ShapeContext, bucketColumn, emptyText } from "./section-kit";

const NOT_RECORDED = "not recorded";

export function criteriaSections(c: CriteriaFigures, ctx: ShapeContext): Section[] {
  const noSessions = emptyText(ctx, "sessions with required criteria", "Sessions record them with proofgate save-success-criteria.");
  const top = (status: "blocked" | "failed", rows: { criterion: string; count: number }[]) => ({
    id: `criteria-top-${status}`,
    title: `Most often ${status}`,
    table: {
      columns: [
        { label: "Criterion", kind: "text" as const },
        { label: "Sessions", kind: "count" as const },
      ],
      rows: rows.map((r) => [r.criterion, r.count]),
    },
    empty: `No criterion is ${status} in these sessions.`,
  });
  return [
    {
      id: "criteria",
      figure: "criteria",
      title: "Criteria completion",
      about:
        "Required criteria met ÷ required, per session (a criterion counts as met when its verifier found it met, or when only its claimant reported it). Sessions are placed in time by their start.",
      stats: [
        { id: "criteria-sessions", label: "Sessions with required criteria", value: c.sessions, kind: "count" },
        { id: "criteria-overall-rate", label: "Required criteria met", value: c.overallRate, kind: "rate", detail: `${c.met} of ${c.required}` },
        { id: "criteria-mean-session-rate", label: "Mean rate per session", value: c.meanSessionRate, kind: "rate" },
      ],
      blocks: [
        {
          id: "criteria-distribution",
          title: "Sessions by completion rate",
          table: {
            columns: [
              { label: "Required criteria met", kind: "text" },
              { label: "Sessions", kind: "count" },
            ],
            rows: c.distribution.map((d) => [d.label, d.sessions]),
          },
          chart: { type: "bar", x: 0, ys: [1] },
          empty: noSessions,
        },
        {
          id: "criteria-over-time",
          title: "Completion rate over time",
          table: {
            columns: [
              bucketColumn(ctx.bucket),
              { label: "Sessions", kind: "count" },
              { label: "Required", kind: "count" },
              { label: "Met", kind: "count" },
              { label: "Rate (all criteria)", kind: "rate" },
              { label: "Mean rate per session", kind: "rate" },
            ],
            rows: c.series.map((p) => [p.bucket, p.sessions, p.required, p.met, p.overallRate, p.meanSessionRate]),
          },
          chart: { type: "line", x: 0, ys: [4, 5] },
          empty: noSessions,
        },
      ],
      empty: c.sessions === 0 ? noSessions : null,
    },
    {
      id: "criteria-top",
      figure: "criteria",
      title: "Most common blocked and failed criteria",
      about: "Criteria by their text, counted once per session whose criterion ended blocked or failed; the verifier's finding counts over the claimant's.",
      stats: [],
      blocks: [top("blocked", c.topBlocked), top("failed", c.topFailed)],
      empty: c.sessions === 0 && c.topBlocked.length === 0 && c.topFailed.length === 0 ? noSessions : null,
    },
  ];
}

export function claimSections(o: Pick<AnalyticsOverview, "falseCompletion" | "verificationLatency" | "blockedTime">, ctx: ShapeContext): Section[] {
  const fc = o.falseCompletion;
  const noClaims = emptyText(ctx, "claims", "Agents claim tasks with proofgate claim <session> <task>.");
  const claimColumns = [
    { label: "Claims", kind: "count" as const },
    { label: "Later blocked", kind: "count" as const },
    { label: "False-completion rate", kind: "rate" as const },
  ];
  const lat = o.verificationLatency;
  const bt = o.blockedTime;
  const percentileColumns = [
    { label: "p50", kind: "ms" as const },
    { label: "p90", kind: "ms" as const },
    { label: "p99", kind: "ms" as const },
  ];
  return [
    {
      id: "false-completion",
      figure: "falseCompletion",
      title: "False completions",
      about:
        "Claims later blocked ÷ claims. A claim is placed by its own time and its claimant; its model is the one the claimant's session recorded for that agent type.",
      stats: [
        { id: "false-completion-rate", label: "False-completion rate", value: fc.rate, kind: "rate", detail: `${fc.blocked} of ${fc.claims} claims` },
        { id: "false-completion-claims", label: "Claims", value: fc.claims, kind: "count" },
        { id: "false-completion-blocked", label: "Later blocked", value: fc.blocked, kind: "count" },
      ],
      blocks: [
        {
          id: "false-completion-by-agent",
          title: "By agent",
          table: { columns: [{ label: "Agent", kind: "text" }, ...claimColumns], rows: fc.byAgent.map((r) => [r.agent, r.claims, r.blocked, r.rate]) },
          chart: { type: "bar", x: 0, ys: [3] },
          empty: noClaims,
        },
        {
          id: "false-completion-by-model",
          title: "By model",
          table: {
            columns: [{ label: "Model", kind: "text" }, ...claimColumns],
            rows: fc.byModel.map((r) => [r.model ?? NOT_RECORDED, r.claims, r.blocked, r.rate]),
          },
          chart: { type: "bar", x: 0, ys: [3] },
          empty: noClaims,
        },
        {
          id: "false-completion-over-time",
          title: "Over time",
          table: { columns: [bucketColumn(ctx.bucket), ...claimColumns], rows: fc.series.map((r) => [r.bucket, r.claims, r.blocked, r.rate]) },
          chart: { type: "line", x: 0, ys: [3] },
          empty: noClaims,
        },
      ],
      empty: fc.claims === 0 ? noClaims : null,
    },
    {
      id: "verification-latency",
      figure: "verificationLatency",
      title: "Verification latency",
      about: "Time from a claim to its judgment (verified or blocked), to the second; nearest-rank percentiles. Filtered like false completions, by the claim.",
      stats: [
        { id: "latency-p50", label: "Median (p50)", value: lat.all.p50, kind: "ms", detail: `of ${lat.all.count} judged claims` },
        { id: "latency-p90", label: "p90", value: lat.all.p90, kind: "ms" },
        { id: "latency-p99", label: "p99", value: lat.all.p99, kind: "ms" },
      ],
      blocks: [
        {
          id: "verification-latency-percentiles",
          title: "Claim to judgment",
          table: {
            columns: [{ label: "Judgment", kind: "text" }, { label: "Claims", kind: "count" }, ...percentileColumns],
            rows: [
              ["Verified or blocked", lat.all.count, lat.all.p50, lat.all.p90, lat.all.p99],
              ["Verified", lat.verified.count, lat.verified.p50, lat.verified.p90, lat.verified.p99],
              ["Blocked", lat.blocked.count, lat.blocked.p50, lat.blocked.p90, lat.blocked.p99],
            ],
          },
          chart: { type: "bar", x: 0, ys: [2, 3, 4] },
          empty: emptyText(ctx, "judged claims", "A verifier judges a claim with proofgate verify or proofgate block."),
        },
      ],
      empty: lat.all.count === 0 ? emptyText(ctx, "judged claims", "A verifier judges a claim with proofgate verify or proofgate block.") : null,
    },
    {
      id: "blocked-time",
      figure: "blockedTime",
      title: "Time blocked and resets",
      about:
        "How long tasks stayed blocked (from the block to an approved reset or a reported status), and how often a lead approved a reset. A spell is placed by its start and by the claimant its block judged.",
      stats: [
        { id: "blocked-median", label: "Median time blocked", value: bt.resolved.p50, kind: "ms", detail: `of ${bt.resolved.count} ended spells` },
        { id: "blocked-total", label: "Total time blocked", value: bt.resolved.totalMs, kind: "ms" },
        { id: "blocked-open", label: "Blocked now", value: bt.open, kind: "count" },
        { id: "blocked-resets", label: "Resets approved", value: bt.resets, kind: "count", detail: `on ${bt.tasksReset} tasks` },
      ],
      blocks: [
        {
          id: "blocked-time-spells",
          title: "Time spent blocked",
          table: {
            columns: [{ label: "Ended spells", kind: "count" }, ...percentileColumns, { label: "Total", kind: "ms" }],
            rows: bt.resolved.count === 0 ? [] : [[bt.resolved.count, bt.resolved.p50, bt.resolved.p90, bt.resolved.p99, bt.resolved.totalMs]],
          },
          empty: "No blocked spell has ended for these filters.",
        },
        {
          id: "blocked-time-resets-per-task",
          title: "Resets per task",
          table: {
            columns: [
              { label: "Resets", kind: "text" },
              { label: "Tasks", kind: "count" },
            ],
            rows: bt.resetsPerTask.map((r) => [r.resets === 1 ? "1 reset" : `${r.resets} resets`, r.tasks]),
          },
          chart: { type: "bar", x: 0, ys: [1] },
          empty: "No reset was approved for these filters.",
        },
      ],
      empty:
        bt.resolved.count === 0 && bt.open === 0 && bt.resets === 0 ? emptyText(ctx, "blocked tasks", "A verifier blocks a claim with proofgate block.") : null,
    },
  ];
}
