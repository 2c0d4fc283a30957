import { createAuthClient } from "better-auth/client";

/** better-auth's browser client: sign-in and sign-out against /api/auth on this same site. */
export const authClient = createAuthClient();
