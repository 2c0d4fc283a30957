import type { inferRouterInputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { ROLES, USER_ROLES as PERSON_ROLES } from "@/server/domain/actors";

type AdminInputs = inferRouterInputs<AppRouter>["admin"];
export type UserRole = AdminInputs["createUser"]["role"];
export type TokenRole = AdminInputs["createToken"]["role"];

/** The roles a person can hold (tokens may also be agents, verifiers and orchestrators). */
export const USER_ROLES: readonly UserRole[] = PERSON_ROLES;
export const TOKEN_ROLES: readonly TokenRole[] = ROLES;

/** What a role may do, read from the permission table itself so the hint cannot drift from the rules. */
export { roleSummary } from "@/server/domain/permissions";
