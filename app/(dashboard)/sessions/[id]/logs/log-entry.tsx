import type { inferRouterOutputs } from "@trpc/server";
import { Badge, type Tone } from "@/app/ui/badge";
import type { AppRouter } from "@/server/api/root";
import { LinkOrText, LongText } from "../goals/long-text";
import { formatUtcSeconds, showValue } from "../goals/text-format";

export type LogEntry = inferRouterOutputs<AppRouter>["log"]["list"]["items"][number];

const TYPE_TONES: Record<LogEntry["logType"], Tone> = { interaction: "neutral", reasoning: "accent", event: "info" };
const CONFIDENCE_TONES: Record<string, Tone> = { high: "good", medium: "neutral", low: "warn" };

/** One row of the timeline: who, when, what kind, the text itself, and for reasoning its phase, confidence and references. */
export function LogEntryItem({ entry }: { entry: LogEntry }) {
  const payload = showValue(entry.eventPayload);
  return (
    <li data-log-id={entry.id} aria-label={`Log ${entry.id}`} className="border-b border-zinc-100 px-3 py-2 last:border-0 dark:border-zinc-800">
      <div className="mb-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        <time dateTime={new Date(entry.timestamp).toISOString()} className="font-mono">
          {formatUtcSeconds(entry.timestamp)}
        </time>
        <span className="font-medium text-zinc-900 dark:text-zinc-100">
          {entry.agentType}
          {entry.agentId && entry.agentId !== entry.agentType && <span className="font-normal text-zinc-500"> ({entry.agentId})</span>}
        </span>
        <Badge tone={TYPE_TONES[entry.logType]}>{entry.logType}</Badge>
        {entry.reasoningPhase && <Badge tone="accent">phase: {entry.reasoningPhase}</Badge>}
        {entry.confidenceLevel && <Badge tone={CONFIDENCE_TONES[entry.confidenceLevel] ?? "neutral"}>confidence: {entry.confidenceLevel}</Badge>}
        {entry.eventSubtype && <span className="font-mono">{entry.eventSubtype}</span>}
        {entry.groupId && <span>group {entry.groupId}</span>}
        {entry.iteration !== null && <span>iteration {entry.iteration}</span>}
        {entry.redacted && <Badge tone="warn">secrets redacted</Badge>}
      </div>
      <LongText text={entry.content} label={`Content of log ${entry.id}`} lines={8} chars={1200} mono={false} />
      {entry.referencesJson && entry.referencesJson.length > 0 && (
        <div className="mt-1 text-xs">
          <span className="text-zinc-500">References: </span>
          <ul className="inline">
            {entry.referencesJson.map((reference, i) => (
              <li key={i} className="mr-2 inline font-mono">
                <LinkOrText value={reference} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {payload && (
        <div className="mt-1">
          <p className="text-xs text-zinc-500">Payload</p>
          <LongText text={payload} label={`Payload of log ${entry.id}`} lines={6} />
        </div>
      )}
    </li>
  );
}
