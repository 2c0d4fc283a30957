import type { Metadata } from "next";
import { HydrateClient, prefetch, trpc } from "@/app/trpc/server";
import { viewerIsAdmin } from "../admin-only";
import { WebhooksClient } from "./webhooks-client";

export const metadata: Metadata = { title: "Webhooks · Settings · Proofgate" };

export default async function WebhooksSettingsPage() {
  if (!(await viewerIsAdmin())) return null;
  await prefetch(trpc.admin.webhooks.queryOptions());
  return (
    <HydrateClient>
      <WebhooksClient />
    </HydrateClient>
  );
}
