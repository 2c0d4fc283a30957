import type { Metadata } from "next";
import { HydrateClient, getViewer, prefetch, trpc } from "@/app/trpc/server";
import { PersonalTokensClient } from "./personal-tokens-client";

export const metadata: Metadata = { title: "Your account · Proofgate" };

/** Every signed-in person's own page, whatever their role: their personal API tokens. */
export default async function AccountPage() {
  const viewer = await getViewer();
  await prefetch(trpc.account.tokens.queryOptions());
  return (
    <div>
      <header className="mb-4">
        <h1 className="text-2xl font-semibold">Your account</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Signed in as {viewer?.label} with the role {viewer?.role}.
        </p>
      </header>
      <HydrateClient>
        <PersonalTokensClient />
      </HydrateClient>
    </div>
  );
}
