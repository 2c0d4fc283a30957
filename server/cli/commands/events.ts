import { setTimeout as sleep } from "node:timers/promises";
import type { Command } from "commander";
import type { EventRow } from "@/server/services/events/list";
import type { SavedEvent } from "@/server/services/log/save-event";
import type { LogEntry } from "@/server/services/log/log-row";
import type { StateSnapshotRow } from "@/server/services/log/save-state";
import { GetEventsInput, SaveEventInput, SaveStateInput } from "@/server/services/log/schemas";
import { SessionId } from "@/server/services/schemas-common";
import { UsageError } from "../errors";
import type { Output } from "../output";
import { act, dualOption, example, int, json, pick, read, sessionArg, snakeKeys, validate, wrote } from "./shared";

const PAGE = 1000;
const POLL_MS = 100;

/** Orchestration events (save-event, get-events) and the ledger's own event log (`events`). */
export function eventCommands(program: Command, out: Output): void {
  const save = program
    .command("save-event")
    .description("Save an orchestration event (pm_bazinga, validator_verdict, tl_review…) with a JSON payload; a repeated idempotency key stores nothing new")
    .argument("<session>", "session id", sessionArg)
    .argument("<subtype>", "event type, e.g. pm_bazinga")
    .argument("[payload_json]", "the payload as JSON (or --payload-file)", json())
    .option("--iteration <n>", "orchestration iteration", int(0));
  dualOption(save, "payload-file", "file", "read the JSON payload from this file", (file) => json()(`@${file}`));
  dualOption(save, "idempotency-key", "key", "a key this event is saved under once");
  dualOption(save, "group-id", "group", "task group (default global)");
  dualOption(save, "agent_type", "agent", "who raised it (default system)");
  example(
    save,
    'proofgate save-event bazinga_20250112_143022 pm_bazinga \'{"summary":"All criteria met","iteration":7}\' --idempotency-key pm_bazinga_7',
  ).action(
    act(out, (sessionId: string, subtype: string, payload: unknown, options: Record<string, unknown>) => {
      const fromFile = pick(options, "payload-file");
      if (payload !== undefined && fromFile !== undefined) throw new UsageError("payload_json: give it as an argument or with --payload-file, not both");
      const input = validate(
        SaveEventInput,
        {
          sessionId,
          subtype,
          payload: payload ?? fromFile,
          idempotencyKey: pick(options, "idempotency-key"),
          groupId: pick(options, "group-id"),
          agentType: pick(options, "agent_type"),
          iteration: options.iteration,
        },
        {
          sessionId: "session",
          subtype: "subtype",
          payload: payload === undefined ? "--payload-file" : "payload_json",
          idempotencyKey: "--idempotency-key",
          groupId: "--group-id",
          agentType: "--agent_type",
        },
      );
      return async (api) => {
        const saved = await api.mutate<SavedEvent>("log.event", input);
        const text = saved.created
          ? `✓ Saved event ${subtype} (#${saved.row.id})`
          : `✓ Event ${subtype} was already saved under this idempotency key (#${saved.row.id}): nothing new stored`;
        return wrote({ created: saved.created, ...snakeKeys(saved.row) }, text);
      };
    }),
  );

  const investigation = program
    .command("save-investigation-iteration")
    .description(
      "Save an investigation iteration: its state (type investigation, for the group) and an investigation_iteration event, saved once per iteration",
    )
    .argument("<session>", "session id", sessionArg)
    .argument("<group>", "task group under investigation")
    .argument("<iteration>", "iteration number (from 1)", int(1, 1_000_000))
    .argument("<status>", "e.g. under_investigation, root_cause_found, hypothesis_eliminated");
  dualOption(investigation, "state-file", "file", "JSON file with the investigation state", (file) => json()(`@${file}`));
  dualOption(investigation, "event-file", "file", "JSON file with the event payload", (file) => json()(`@${file}`));
  example(
    investigation,
    "proofgate save-investigation-iteration bazinga_20250112_143022 group_a 2 root_cause_found --state-file /tmp/state.json --event-file /tmp/event.json",
  ).action(
    act(out, (session: string, groupId: string, iteration: number, status: string, options: Record<string, unknown>) => {
      const data = pick(options, "state-file");
      const payload = pick(options, "event-file");
      if (data === undefined) throw new UsageError("--state-file: required");
      if (payload === undefined) throw new UsageError("--event-file: required");
      const state = validate(SaveStateInput, { sessionId: session, stateType: "investigation", groupId, data }, { groupId: "group", data: "--state-file" });
      const event = validate(
        SaveEventInput,
        {
          sessionId: session,
          subtype: "investigation_iteration",
          groupId,
          iteration,
          payload,
          content: `Investigation iteration ${iteration}: ${status}`,
          idempotencyKey: `${session}|${groupId}|investigation_iteration|${iteration}`,
        },
        { groupId: "group", payload: "--event-file", content: "status" },
      );
      // Two writes, state first: a retry after a failure in between finds the event key unused and
      // saves it then (the API has no single procedure for both yet).
      return async (api) => {
        const row = await api.mutate<StateSnapshotRow>("log.saveState", state);
        const saved = await api.mutate<SavedEvent>("log.event", event);
        return wrote(
          { state: snakeKeys(row), event: { created: saved.created, ...snakeKeys(saved.row) } },
          `✓ Saved investigation iteration ${iteration} of ${groupId}: ${status}${saved.created ? "" : " (event already saved)"}`,
        );
      };
    }),
  );

  example(
    program
      .command("get-events")
      .description("List a session's orchestration events, newest first, payloads parsed")
      .argument("<session>", "session id", sessionArg)
      .argument("[subtype]", "only this event type")
      .argument("[limit]", "how many (default 50)", int(1, 500)),
    "proofgate get-events bazinga_20250112_143022 pm_bazinga 1",
  ).action(
    act(out, (sessionId: string, subtype: string | undefined, limit: number | undefined) => {
      const input = validate(GetEventsInput, { sessionId, subtype, limit }, { sessionId: "session" });
      return async (api) => read((await api.query<LogEntry[]>("log.events", input)).map(snakeKeys));
    }),
  );

  example(
    program
      .command("events")
      .description(
        "Print the ledger's events, one JSON object per line; --follow keeps printing new ones (from now, or after --since) until interrupted — " +
          "in remote mode over the server's live stream, reconnecting after a drop with no gap and no repeat",
      )
      .option("--session <id>", "only this session's events")
      .option("--since <id>", "start after this event id (default: the first event; with --follow, now)", int(0))
      .option("--follow", "keep printing new events until SIGINT or SIGTERM"),
    "proofgate events --session bazinga_20250112_143022 --since 120",
    "proofgate events --follow",
    "proofgate --url http://127.0.0.1:3000 --token $PROOFGATE_TOKEN events --session bazinga_20250112_143022 --follow",
  ).action(
    act(out, (options: { session?: string; since?: number; follow?: boolean }) => {
      if (options.session !== undefined) validate(SessionId, options.session, { input: "--session" });
      const filter = options.session ? { sessionId: options.session } : {};
      return async (api, globals) => {
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once("SIGINT", onSignal);
        process.once("SIGTERM", onSignal);
        let last = options.since ?? 0;
        // Never a duplicate, whatever the transport does: ids only grow.
        const print = (row: EventRow) => {
          if (row.id <= last) return;
          process.stdout.write(`${JSON.stringify(row)}\n`);
          last = row.id;
        };
        try {
          if (options.follow && options.since === undefined) last = await api.query<number>("events.latestId");
          if (options.follow && api.subscribe) {
            // Remote: the server's SSE subscription, from the last id printed; after a drop the
            // transport reconnects from the last id it received. The whole stream is read and the
            // session picked out here: events.stream with a sessionId spins once another session
            // has newer events (see the report on server/api/routers/events.ts).
            const note = (text: string) => globals.quiet || process.stderr.write(`proofgate: ${text}\n`);
            const stream = api.subscribe<EventRow>(
              "events.stream",
              {},
              {
                lastEventId: String(last),
                signal: stop.signal,
                onConnection: (change) =>
                  note(
                    change.state === "lost"
                      ? `event stream lost (${describeDrop(change.error)}); reconnecting after event ${change.lastEventId ?? last}`
                      : "event stream restored",
                  ),
              },
            );
            for await (const { data } of stream) if (!options.session || data.sessionId === options.session) print(data);
            return null;
          }
          // Local mode (or no --follow): page through events.list; following polls the file.
          while (!stop.signal.aborted) {
            const rows = await api.query<EventRow[]>("events.list", { afterId: last, limit: PAGE, ...filter });
            rows.forEach(print);
            if (rows.length === PAGE) continue;
            if (!options.follow) break;
            await sleep(POLL_MS, undefined, { signal: stop.signal }).catch(() => undefined);
          }
        } finally {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
        }
        return null;
      };
    }),
  );
}

/** fetch's "terminated" / "fetch failed" say little; their cause says what happened ("other side closed", "connect ECONNREFUSED …"). */
function describeDrop(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } } | null)?.cause?.message;
  return typeof cause === "string" && cause ? cause : error instanceof Error ? error.message : String(error);
}
