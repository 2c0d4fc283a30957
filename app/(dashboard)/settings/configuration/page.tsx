import type { Metadata } from "next";
import { HydrateClient, prefetch, trpc } from "@/app/trpc/server";
import { viewerIsAdmin } from "../admin-only";
import { ConfigurationClient } from "./configuration-client";

export const metadata: Metadata = { title: "Configuration · Settings · Proofgate" };

export default async function ConfigurationSettingsPage() {
  if (!(await viewerIsAdmin())) return null;
  await prefetch(trpc.admin.modelConfig.queryOptions(), trpc.admin.configuration.queryOptions(), trpc.admin.workflow.queryOptions());
  return (
    <HydrateClient>
      <ConfigurationClient />
    </HydrateClient>
  );
}
