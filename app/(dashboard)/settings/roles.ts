import type { inferRouterInputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { ROLES, type Role } from "@/server/domain/actors";
import { MOVE_RULES, type TaskMove } from "@/server/domain/task-machine";

type AdminInputs = inferRouterInputs<AppRouter>["admin"];
export type UserRole = AdminInputs["createUser"]["role"];
export type TokenRole = AdminInputs["createToken"]["role"];

/** The roles a person can hold (tokens may also be agents, verifiers and orchestrators). */
export const USER_ROLES = ["viewer", "lead", "admin"] as const satisfies readonly UserRole[];
export const TOKEN_ROLES: readonly TokenRole[] = ROLES;

/** What a role may do, read from the task machine's own rules so the hint cannot drift from them. */
export function roleSummary(role: Role): string {
  const moves = (Object.keys(MOVE_RULES) as TaskMove[]).filter((move) => MOVE_RULES[move].roles.includes(role)).map((move) => move.replace("_", " "));
  if (moves.length === 0) return "reads everything, changes nothing";
  return `task moves: ${moves.join(", ")}${role === "admin" ? "; manages users and API tokens" : ""}`;
}
