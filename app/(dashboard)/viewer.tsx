"use client";

import { type ReactNode, createContext, useContext } from "react";
import type { Actor, Role } from "@/server/domain/actors";
import { type TaskMove, canRoleMove } from "@/server/domain/task-machine";

const ViewerContext = createContext<Actor | null>(null);

export function ViewerProvider({ viewer, children }: { viewer: Actor; children: ReactNode }) {
  return <ViewerContext.Provider value={viewer}>{children}</ViewerContext.Provider>;
}

/** The signed-in person, as the API sees them. */
export function useViewer(): Actor {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error("useViewer must be used inside the dashboard layout");
  return viewer;
}

/** Whether the signed-in person's role may make a task move: buttons they cannot use are not offered. */
export function useCanMove(move: TaskMove): boolean {
  return canRoleMove(useViewer().role, move);
}

export function useHasRole(...roles: Role[]): boolean {
  return roles.includes(useViewer().role);
}
