"use client";

import { type ReactNode, createContext, useContext } from "react";
import type { Actor } from "@/server/domain/actors";
import { type Action, may } from "@/server/domain/permissions";
import { MOVE_ACTIONS, type TaskMove } from "@/server/domain/task-machine";

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

/** Whether the signed-in person's role may take an action (permissions.ts): what they cannot do is not offered. */
export function useMay(action: Action): boolean {
  return may(useViewer().role, action);
}

/** Whether the signed-in person's role may make a task move. */
export function useCanMove(move: TaskMove): boolean {
  return useMay(MOVE_ACTIONS[move]);
}
