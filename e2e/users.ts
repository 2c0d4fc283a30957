import path from "node:path";

/** The people scripts/e2e-server.mjs creates, one per human role. */
export const E2E_ROLES = ["admin", "lead", "viewer"] as const;
export type E2eRole = (typeof E2E_ROLES)[number];
export const E2E_PASSWORD = "e2e-password-123";
export const emailOf = (role: E2eRole) => `${role}@proofgate.test`;
/** Signed-in browser state per role, written by e2e/auth.setup.ts. */
export const authFile = (role: E2eRole) => path.resolve(".e2e", "auth", `${role}.json`);
