import { HydrateClient, getQueryClient, trpc } from "@/app/trpc/server";
import { ErrorState } from "@/app/ui/states";
import { readBucket } from "./chart-data";
import { TokensClient } from "./tokens-client";

export const dynamic = "force-dynamic";

/** Tokens the session's agents reported, by agent, by model and over time. */
export default async function SessionTokensPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const sessionId = decodeURIComponent((await params).id);
  const bucket = readBucket((await searchParams).bucket);
  const summary = trpc.log.tokenSummary.queryOptions({ sessionId, by: "agent_type" });
  const byModel = trpc.log.tokenSummary.queryOptions({ sessionId, by: "model" });
  const overTime = trpc.log.tokensOverTime.queryOptions({ sessionId, bucket: "minute" });
  const client = getQueryClient();
  // Awaited (three grouped reads): a refusal such as an unknown session is shown with the server's message.
  await Promise.all([client.prefetchQuery(summary), client.prefetchQuery(byModel), client.prefetchQuery(overTime)]);
  const failure = [summary.queryKey, byModel.queryKey, overTime.queryKey].map((key) => client.getQueryState(key)?.error).find(Boolean);
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading" className="mb-1 text-xl font-semibold">
        Tokens
      </h2>
      <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">Estimated tokens the agents reported, by agent, over time and by model.</p>
      {failure ? (
        <ErrorState title="Could not load the token usage" error={failure} />
      ) : (
        <HydrateClient>
          <TokensClient sessionId={sessionId} initialBucket={bucket} />
        </HydrateClient>
      )}
    </section>
  );
}
