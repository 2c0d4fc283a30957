import { HydrateClient, prefetch, trpc } from "@/app/trpc/server";
import { viewerIsAdmin } from "./admin-only";
import { UsersClient } from "./users-client";

export default async function UsersSettingsPage() {
  if (!(await viewerIsAdmin())) return null;
  await prefetch(trpc.admin.users.queryOptions());
  return (
    <HydrateClient>
      <UsersClient />
    </HydrateClient>
  );
}
