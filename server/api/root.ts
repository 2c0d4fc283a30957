import { accountRouter } from "./routers/account";
import { adminRouter } from "./routers/admin";
import { analyticsRouter } from "./routers/analytics";
import { attemptRouter } from "./routers/attempt";
import { completionRouter } from "./routers/completion";
import { criteriaRouter } from "./routers/criteria";
import { eventsRouter } from "./routers/events";
import { goalRouter } from "./routers/goal";
import { logRouter } from "./routers/log";
import { sessionRouter } from "./routers/session";
import { runtimeRouter } from "./routers/runtime";
import { setupRouter } from "./routers/setup";
import { taskRouter } from "./routers/task";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  session: sessionRouter,
  task: taskRouter,
  criteria: criteriaRouter,
  completion: completionRouter,
  goal: goalRouter,
  attempt: attemptRouter,
  log: logRouter,
  events: eventsRouter,
  admin: adminRouter,
  account: accountRouter,
  analytics: analyticsRouter,
  setup: setupRouter,
  runtime: runtimeRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
