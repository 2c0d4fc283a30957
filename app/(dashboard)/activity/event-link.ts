/**
 * What an audit-log row links to: the page that shows the thing the event is about. A task's event
 * opens its session's board at the task's card, a criterion's or completion check's its section,
 * a goal's or attempt's the goals tab (at the goal when the event names it), telemetry the logs or
 * tokens tab, and an admin's change to users or tokens Settings (admins only). Pure.
 */
import type { Role } from "@/server/domain/actors";

export interface LinkableEvent {
  type: string;
  entity: string;
  entityId: string | null;
  sessionId: string | null;
  data: Record<string, unknown> | null;
}

export interface EventLink {
  href: string;
  /** What the link opens, in a few words ("task t1 in s1"). */
  label: string;
}

/** The anchor of a task's card on its session page (task-card.tsx sets it). */
export const taskAnchor = (key: string) => `task-${key}`;

const sessionPath = (id: string) => `/sessions/${encodeURIComponent(id)}`;
const str = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
const num = (value: unknown) => (typeof value === "number" && Number.isInteger(value) ? value : null);

const GOALS = new Set(["goal", "attempt", "validation_step", "branch", "worktree", "merge", "tool"]);
const LOGS = new Set(["log", "state_snapshot", "skill_output", "decision", "development_plan", "context_package"]);

export function eventLink(event: LinkableEvent, viewerRole: Role): EventLink | null {
  const data = event.data ?? {};
  if (event.entity === "user" || event.entity === "api_token") return viewerRole === "admin" ? { href: "/settings", label: "Settings" } : null;
  if (event.entity === "webhook") return viewerRole === "admin" ? { href: "/settings/webhooks", label: "webhooks in Settings" } : null;
  const session = event.sessionId;
  if (session === null) return null;
  const base = sessionPath(session);
  switch (event.entity) {
    case "task": {
      const key = str(data.key);
      return key ? { href: `${base}#${encodeURIComponent(taskAnchor(key))}`, label: `task ${key} in ${session}` } : { href: base, label: `session ${session}` };
    }
    case "criterion":
      return { href: `${base}#criteria-heading`, label: `criteria of ${session}` };
    case "completion_check":
      return { href: `${base}#checks-heading`, label: `completion checks of ${session}` };
    case "token_usage":
      return { href: `${base}/tokens`, label: `tokens of ${session}` };
  }
  if (GOALS.has(event.entity)) {
    const goal = event.entity === "goal" ? num(Number(event.entityId)) : num(data.goalId);
    return goal !== null
      ? { href: `${base}/goals#goal-${goal}-title`, label: `goal ${goal} in ${session}` }
      : { href: `${base}/goals`, label: `goals of ${session}` };
  }
  if (LOGS.has(event.entity)) return { href: `${base}/logs`, label: `logs of ${session}` };
  return { href: base, label: `session ${session}` };
}
