/**
 * The analytics page's sections, shaped from `analytics.overview`: for each figure its headline
 * numbers, and its blocks — each a table that the chart (if any) is drawn from and the CSV is
 * written from. Pure: no React, so every figure's shape is unit-tested (sections.test.ts).
 */
import type { AnalyticsOverview, FigureName } from "@/server/services/analytics/overview";
import type { Section, ShapeContext } from "./section-kit";
import { claimSections, criteriaSections } from "./sections-claims";
import { outcomeSections } from "./sections-outcomes";

/** Why a figure cannot apply a filter, as the page says it. */
export const IGNORED_BECAUSE: Partial<Record<FigureName, Partial<Record<"agent" | "model", string>>>> = {
  criteria: { agent: "criteria belong to a session, not to an agent", model: "criteria belong to a session, not to a model" },
  completionChecks: { model: "a completion check records no model" },
  goalAttempts: { agent: "a goal attempt names no agent" },
  runtimeStops: { model: "a runtime's stop records no model" },
};

/** The filters a figure ignored, each with why, for the note above its section. */
export function ignoredNotes(overview: Pick<AnalyticsOverview, "ignoredFilters">, figure: FigureName): string[] {
  return (overview.ignoredFilters[figure] ?? []).map((filter) => {
    const why = IGNORED_BECAUSE[figure]?.[filter] ?? "it has no " + filter;
    return `The ${filter} filter is not applied here: ${why}.`;
  });
}

/** Every section of the page, in the page's order. */
export function analyticsSections(overview: AnalyticsOverview): Section[] {
  const f = overview.filters;
  const ctx: ShapeContext = { bucket: f.bucket, filtered: f.from !== null || f.to !== null || f.source !== null || f.agent !== null || f.model !== null };
  return [...criteriaSections(overview.criteria, ctx), ...claimSections(overview, ctx), ...outcomeSections(overview, ctx)];
}
