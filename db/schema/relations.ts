import { relations } from "drizzle-orm";
import { acceptanceCriteria, goalContracts, goalGateEvaluations, trustScores } from "./contracts";
import { completionChecks, criterionUpdates, successCriteria } from "./criteria";
import { attemptResults, attempts, goals, toolCalls, validationRuns, validationSteps } from "./goals";
import { sessions } from "./sessions";
import { taskTransitions, tasks } from "./tasks";
import { contextPackageConsumers, contextPackages } from "./telemetry";

// Relations live in one file because the areas reference each other (goals ↔ attempts ↔ contracts).

export const sessionsRelations = relations(sessions, ({ many }) => ({
  tasks: many(tasks),
  criteria: many(successCriteria),
  completionChecks: many(completionChecks),
  goals: many(goals),
}));

export const tasksRelations = relations(tasks, ({ one, many }) => ({
  session: one(sessions, { fields: [tasks.sessionId], references: [sessions.id] }),
  transitions: many(taskTransitions),
}));

export const taskTransitionsRelations = relations(taskTransitions, ({ one }) => ({
  task: one(tasks, { fields: [taskTransitions.taskId], references: [tasks.id] }),
}));

export const successCriteriaRelations = relations(successCriteria, ({ one, many }) => ({
  session: one(sessions, { fields: [successCriteria.sessionId], references: [sessions.id] }),
  updates: many(criterionUpdates),
}));

export const criterionUpdatesRelations = relations(criterionUpdates, ({ one }) => ({
  criterion: one(successCriteria, { fields: [criterionUpdates.criterionId], references: [successCriteria.id] }),
}));

export const completionChecksRelations = relations(completionChecks, ({ one }) => ({
  session: one(sessions, { fields: [completionChecks.sessionId], references: [sessions.id] }),
}));

export const goalsRelations = relations(goals, ({ one, many }) => ({
  session: one(sessions, { fields: [goals.sessionId], references: [sessions.id] }),
  parent: one(goals, { fields: [goals.parentGoalId], references: [goals.id], relationName: "subgoals" }),
  subgoals: many(goals, { relationName: "subgoals" }),
  attempts: many(attempts, { relationName: "goalAttempts" }),
  validationSteps: many(validationSteps),
  contract: one(goalContracts, { fields: [goals.id], references: [goalContracts.goalId] }),
  evaluations: many(goalGateEvaluations),
}));

export const attemptsRelations = relations(attempts, ({ one, many }) => ({
  goal: one(goals, { fields: [attempts.goalId], references: [goals.id], relationName: "goalAttempts" }),
  result: one(attemptResults, { fields: [attempts.id], references: [attemptResults.attemptId] }),
  toolCalls: many(toolCalls),
  trustScores: many(trustScores),
}));

export const attemptResultsRelations = relations(attemptResults, ({ one, many }) => ({
  attempt: one(attempts, { fields: [attemptResults.attemptId], references: [attempts.id] }),
  validationRuns: many(validationRuns),
}));

export const toolCallsRelations = relations(toolCalls, ({ one }) => ({
  attempt: one(attempts, { fields: [toolCalls.attemptId], references: [attempts.id] }),
}));

export const validationStepsRelations = relations(validationSteps, ({ one, many }) => ({
  goal: one(goals, { fields: [validationSteps.goalId], references: [goals.id] }),
  runs: many(validationRuns),
}));

export const validationRunsRelations = relations(validationRuns, ({ one }) => ({
  step: one(validationSteps, { fields: [validationRuns.validationStepId], references: [validationSteps.id] }),
  result: one(attemptResults, { fields: [validationRuns.attemptResultId], references: [attemptResults.id] }),
}));

export const trustScoresRelations = relations(trustScores, ({ one }) => ({
  attempt: one(attempts, { fields: [trustScores.attemptId], references: [attempts.id] }),
}));

export const goalContractsRelations = relations(goalContracts, ({ one, many }) => ({
  goal: one(goals, { fields: [goalContracts.goalId], references: [goals.id] }),
  criteria: many(acceptanceCriteria),
}));

export const acceptanceCriteriaRelations = relations(acceptanceCriteria, ({ one }) => ({
  contract: one(goalContracts, { fields: [acceptanceCriteria.contractId], references: [goalContracts.id] }),
}));

export const goalGateEvaluationsRelations = relations(goalGateEvaluations, ({ one }) => ({
  goal: one(goals, { fields: [goalGateEvaluations.goalId], references: [goals.id] }),
}));

export const contextPackagesRelations = relations(contextPackages, ({ many }) => ({
  consumers: many(contextPackageConsumers),
}));

export const contextPackageConsumersRelations = relations(contextPackageConsumers, ({ one }) => ({
  package: one(contextPackages, { fields: [contextPackageConsumers.packageId], references: [contextPackages.id] }),
}));
