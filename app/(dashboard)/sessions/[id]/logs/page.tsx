import { LogsClient } from "./logs-client";
import { readLogFilters } from "./log-filters";

export const dynamic = "force-dynamic";

/** The session's logs and reasoning as a filterable timeline that loads older rows on request. */
export default async function SessionLogsPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const sessionId = decodeURIComponent((await params).id);
  const filters = readLogFilters(await searchParams);
  return (
    <section aria-labelledby="logs-heading">
      <h2 id="logs-heading" className="mb-1 text-xl font-semibold">
        Logs and reasoning
      </h2>
      <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">
        Every interaction, reasoning entry and orchestration event the agents logged, newest first. Secrets were redacted on the way in.
      </p>
      <LogsClient sessionId={sessionId} initialFilters={filters} />
    </section>
  );
}
