import type { Metadata } from "next";
import { HydrateClient, prefetch, trpc } from "@/app/trpc/server";
import { viewerIsAdmin } from "../admin-only";
import { TokensClient } from "./tokens-client";

export const metadata: Metadata = { title: "API tokens · Settings · Proofgate" };

export default async function TokensSettingsPage() {
  if (!(await viewerIsAdmin())) return null;
  await prefetch(trpc.admin.tokens.queryOptions());
  return (
    <HydrateClient>
      <TokensClient />
    </HydrateClient>
  );
}
