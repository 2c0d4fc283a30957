"use client";

import { CompletionChecks } from "./completion-checks";
import { CriteriaSection } from "./criteria-section";
import { RuntimeSection } from "./runtime-section";
import { LearningSection } from "./learning-section";
import { TasksBoard } from "./tasks-board";

export function SessionOverview({ sessionId }: { sessionId: string }) {
  return (
    <div className="space-y-8">
      <TasksBoard sessionId={sessionId} />
      <CriteriaSection sessionId={sessionId} />
      <RuntimeSection sessionId={sessionId} />
      <CompletionChecks sessionId={sessionId} />
      <LearningSection sessionId={sessionId} />
    </div>
  );
}
