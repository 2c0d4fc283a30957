import type { Command } from "commander";
import { ROLES, USER_ROLES } from "@/server/domain/actors";
import type { UserSummary } from "@/server/services/admin/users";
import type { Output } from "../output";
import { act, example, int, oneOf, read, validate, wrote } from "./shared";

interface TokenSummaryRow {
  id: number;
  name: string;
  /** An agent token's role, or the role a personal token acts with (its owner's, now). */
  role: string;
  prefix: string;
  /** The person a personal token belongs to; null for an agent token. */
  owner: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** Operator commands: `user create|list` and `token create|list|revoke` (admin; the local operator is one). */
export function adminCommands(program: Command, out: Output): void {
  const user = program.command("user").description("People who sign in to the dashboard (viewer, lead, admin)");
  example(
    user
      .command("create")
      .description("Create a person with an email and password; on a fresh install, make the first one an admin")
      .requiredOption("--email <email>", "their email, used to sign in")
      .requiredOption("--password <password>", "at least 10 characters (hashed, never stored in clear)")
      .requiredOption("--role <role>", USER_ROLES.join(", "), oneOf(USER_ROLES))
      .option("--name <name>", "display name (default: the email's local part)"),
    "proofgate user create --email lead@example.com --password 'correct horse battery' --role lead",
  ).action(
    act(out, (options: { email: string; password: string; role: string; name?: string }) => {
      return async (api) => {
        // The schema's module hashes passwords (better-auth): loaded by this command only. Checked before any call opens the database.
        const { CreateUserInput } = await import("@/server/services/admin/users");
        const input = validate(CreateUserInput, options, { email: "--email", password: "--password", role: "--role", name: "--name" });
        const created = await api.mutate<UserSummary>("admin.createUser", input);
        return wrote(created, `✓ Created ${created.role} ${created.email}`);
      };
    }),
  );
  example(user.command("list").description("List people and their roles"), "proofgate user list").action(
    act(out, () => async (api) => read(await api.query<UserSummary[]>("admin.users"))),
  );

  const token = program
    .command("token")
    .description(
      "API tokens for agents and scripts (one role each; shown once, stored hashed). People create personal tokens, which act with their own role, in the dashboard (Settings → My tokens)",
    );
  example(
    token
      .command("create")
      .description('Create an API token and print it once (--json: {"token": …})')
      .requiredOption("--name <name>", "what uses it, e.g. ci-developer")
      .requiredOption("--role <role>", ROLES.join(", "), oneOf(ROLES))
      .option("--expires-in-days <n>", "expire after this many days", int(1, 3650)),
    "proofgate token create --name developer-bot --role agent",
    "proofgate --json token create --name verifier-bot --role verifier",
  ).action(
    act(out, (options: { name: string; role: string; expiresInDays?: number }) => {
      return async (api) => {
        const { CreateTokenInput } = await import("@/server/services/admin/tokens");
        const input = validate(CreateTokenInput, options, { name: "--name", role: "--role", expiresInDays: "--expires-in-days" });
        const created = await api.mutate<{ id: number; token: string; name: string; role: string; prefix: string }>("admin.createToken", input);
        // Not `wrote`: --quiet must not swallow a secret that is shown only once.
        return read(created, `${created.token}\n(token #${created.id} "${created.name}", role ${created.role}: shown once, only its hash is stored)`);
      };
    }),
  );
  example(token.command("list").description("List API tokens (never their values)"), "proofgate token list").action(
    act(out, () => async (api) => {
      const tokens = await api.query<TokenSummaryRow[]>("admin.tokens");
      const lines = tokens.map(
        (t) =>
          `#${t.id}  ${t.prefix}…  ${t.name}  ${t.role}${t.owner ? `  personal token of ${t.owner}` : ""}${t.revokedAt ? "  revoked" : ""}${t.lastUsedAt ? `  last used ${new Date(t.lastUsedAt).toISOString()}` : ""}`,
      );
      return read(tokens, lines.length > 0 ? lines.join("\n") : "No API tokens.");
    }),
  );
  example(
    token.command("revoke").description("Revoke an API token: it stops working at once").argument("<id>", "the token's id (see token list)", int(1)),
    "proofgate token revoke 3",
  ).action(
    act(out, (id: number) => async (api) => {
      await api.mutate("admin.revokeToken", { id });
      return wrote({ id, revoked: true }, `✓ Revoked token #${id}`);
    }),
  );
}
