import { HydrateClient, getQueryClient, trpc } from "@/app/trpc/server";
import { ErrorState } from "@/app/ui/states";
import { GoalsClient } from "./goals-client";

export const dynamic = "force-dynamic";

/** A session's goals as a tree, each with its contract, attempts and goal-gate evaluations. */
export default async function SessionGoalsPage({ params }: { params: Promise<{ id: string }> }) {
  const sessionId = decodeURIComponent((await params).id);
  const tree = trpc.goal.tree.queryOptions({ sessionId });
  // Awaited (one indexed read per table): a refusal such as an unknown session is shown with the server's message.
  await getQueryClient().prefetchQuery(tree);
  const failure = getQueryClient().getQueryState(tree.queryKey)?.error;
  return (
    <section aria-labelledby="goals-heading">
      <h2 id="goals-heading" className="mb-1 text-xl font-semibold">
        Goals
      </h2>
      <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">Goals and sub-goals, each attempt at them, and what the goal gate decided.</p>
      {failure ? (
        <ErrorState title="Could not load the goals" error={failure} />
      ) : (
        <HydrateClient>
          <GoalsClient sessionId={sessionId} />
        </HydrateClient>
      )}
    </section>
  );
}
