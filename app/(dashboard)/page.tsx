import { getDb } from "@/db/client";
import { listRecentSessions } from "@/server/services/session/list-recent";
import { ProgressBar } from "@/app/ui/progress-bar";

// Reads the live database on every request.
export const dynamic = "force-dynamic";

const STATUS_STYLE: Record<string, string> = {
  active: "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200",
  completed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200",
  failed: "bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-200",
};

export default function OverviewPage() {
  const { totals, recent } = listRecentSessions(getDb(), { limit: 25 });
  return (
    <div>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">Overview</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Completion claims, verification and gates across your agent sessions.</p>
      </header>

      <section aria-label="Session totals" className="mb-8 grid grid-cols-2 gap-3 sm:grid-cols-4">
        {(
          [
            ["Sessions", totals.sessions],
            ["Active", totals.active],
            ["Completed", totals.completed],
            ["Failed", totals.failed],
          ] as const
        ).map(([label, value]) => (
          <div key={label} className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
            <div className="text-xs uppercase tracking-wide text-zinc-500">{label}</div>
            <div className="text-2xl font-semibold tabular-nums" data-testid={`total-${label.toLowerCase()}`}>
              {value}
            </div>
          </div>
        ))}
      </section>

      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading" className="mb-3 text-lg font-medium">
          Recent sessions
        </h2>
        {recent.length === 0 ? (
          <div className="rounded-lg border border-dashed border-zinc-300 p-6 text-sm dark:border-zinc-700">
            <p className="font-medium">No sessions yet.</p>
            <p className="mt-1 text-zinc-600 dark:text-zinc-400">
              Fill the database with demo data: <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">npx proofgate demo --sessions 50</code>
            </p>
          </div>
        ) : (
          <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
            <table className="w-full text-left text-sm">
              <thead className="border-b border-zinc-200 text-xs uppercase text-zinc-500 dark:border-zinc-800">
                <tr>
                  <th className="px-3 py-2">Session</th>
                  <th className="px-3 py-2">Status</th>
                  <th className="px-3 py-2">Tasks completed</th>
                  <th className="px-3 py-2">Required criteria met</th>
                  <th className="px-3 py-2">Flags</th>
                  <th className="px-3 py-2">Started (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {recent.map((s) => (
                  <tr key={s.id} className="border-b border-zinc-100 last:border-0 dark:border-zinc-800">
                    <td className="px-3 py-2">
                      <div className="font-mono text-xs">{s.id}</div>
                      <div className="max-w-xs truncate text-zinc-600 dark:text-zinc-400">{s.requirements}</div>
                    </td>
                    <td className="px-3 py-2">
                      <span className={`rounded px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[s.status] ?? ""}`}>{s.status}</span>
                    </td>
                    <td className="px-3 py-2">
                      <ProgressBar label={`Tasks completed in ${s.id}`} value={s.tasksCompleted} max={s.tasksTotal} />
                    </td>
                    <td className="px-3 py-2">
                      <ProgressBar label={`Required criteria met in ${s.id}`} value={s.criteriaRequiredMet} max={s.criteriaRequired} />
                    </td>
                    <td className="space-x-1 px-3 py-2 text-xs">
                      {s.tasksBlocked > 0 && <span className="rounded bg-amber-100 px-1.5 py-0.5 text-amber-900 dark:bg-amber-950 dark:text-amber-200">{s.tasksBlocked} blocked</span>}
                      {s.tasksUnverified > 0 && <span className="rounded bg-rose-100 px-1.5 py-0.5 text-rose-900 dark:bg-rose-950 dark:text-rose-200">{s.tasksUnverified} unverified</span>}
                      {s.enforcement === "observe" && <span className="rounded bg-zinc-100 px-1.5 py-0.5 dark:bg-zinc-800">observe</span>}
                    </td>
                    <td className="px-3 py-2 font-mono text-xs">{s.startedAt.toISOString().replace("T", " ").slice(0, 16)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
