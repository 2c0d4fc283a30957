import type { Command } from "commander";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";
import { WEBHOOK_EVENTS, WEBHOOK_FORMATS } from "@/server/domain/webhooks";
import { DEFAULT_LOG_DAYS, retentionNote } from "@/server/services/webhooks/retention";
import type { Output } from "../output";
import { act, example, int, oneOf, read, validate, wrote } from "./shared";

interface WebhookRow {
  id: number;
  url: string;
  events: string[] | "all";
  format: string;
  sessionSource: string | null;
  pending: number;
  delivered: number;
  failed: number;
}

interface DeliveryRow {
  id: number;
  eventId: number;
  eventType: string;
  status: string;
  attempts: number;
  lastError: string | null;
  responseCode: number | null;
  nextAttemptAt: Date;
  createdAt: Date;
}

/** The server's dispatcher deletes old deliveries; its PROOFGATE_WEBHOOK_LOG_DAYS, not this process's, decides when. */
const RETENTION_NOTE = `${retentionNote(DEFAULT_LOG_DAYS)}, unless the server sets PROOFGATE_WEBHOOK_LOG_DAYS.`;
const LOCAL_NOTE = "in local mode the outbox is written to the database file; the server delivers it when it runs";

/** `webhook add|list|remove|test|log`: notifications to receivers (admin; the local operator is one). */
export function webhookCommands(program: Command, out: Output): void {
  const webhook = program
    .command("webhook")
    .description("Notifications: signed POSTs (Standard Webhooks) to receivers when tasks are blocked, resets asked for, completions rejected…");
  example(
    webhook
      .command("add")
      .description("Subscribe a receiver and print its signing secret once")
      .argument("<url>", "the receiver, http:// or https://")
      .requiredOption("--events <list>", `all, or a comma-separated list of: ${WEBHOOK_EVENTS.join(", ")}`)
      .option("--secret <whsec>", "a Standard Webhooks secret (whsec_ then base64); generated when absent")
      .option("--format <format>", `${WEBHOOK_FORMATS.join(" or ")} (slack: a Slack incoming-webhook message with a link)`, oneOf(WEBHOOK_FORMATS), "json")
      .option("--session-source <source>", `only sessions from this source: ${SESSION_SOURCES.join(", ")}`),
    "proofgate webhook add https://hooks.example.com/proofgate --events task.blocked,task.reset_requested",
    "proofgate webhook add https://hooks.slack.com/services/T0/B0/XYZ --events all --format slack --session-source bazinga",
  ).action(
    act(out, (url: string, options: { events: string; secret?: string; format: string; sessionSource?: string }) => {
      return async (api) => {
        const { CreateWebhookFields, CreateWebhookInput } = await import("@/server/services/webhooks/schemas");
        const events =
          options.events.trim() === "all"
            ? "all"
            : options.events
                .split(",")
                .map((e) => e.trim())
                .filter(Boolean);
        const input = validate(
          // Remotely, whether a private receiver is allowed is the server's setting, not this shell's.
          api.mode === "local" ? CreateWebhookInput : CreateWebhookFields,
          {
            url,
            events,
            format: options.format,
            ...(options.secret !== undefined ? { secret: options.secret } : {}),
            ...(options.sessionSource ? { sessionSource: options.sessionSource } : {}),
          },
          { url: "argument 'url'", events: "--events", secret: "--secret", format: "--format", sessionSource: "--session-source" },
        );
        const created = await api.mutate<WebhookRow & { secret: string }>("admin.createWebhook", input);
        const note = api.mode === "local" ? `\n(${LOCAL_NOTE})` : "";
        // Not `wrote`: --quiet must not swallow a secret that is shown only once.
        return read(
          created,
          `${created.secret}\n(webhook #${created.id} → ${created.url}, events ${created.events === "all" ? "all" : created.events.join(",")}, ${created.format}: the signing secret is shown once, stored encrypted)${note}`,
        );
      };
    }),
  );
  example(webhook.command("list").description("List webhooks and their delivery counts (never their secrets)"), "proofgate webhook list").action(
    act(out, () => async (api) => {
      const hooks = await api.query<WebhookRow[]>("admin.webhooks");
      const lines = hooks.map(
        (h) =>
          `#${h.id}  ${h.url}  ${h.events === "all" ? "all events" : h.events.join(",")}  ${h.format}${h.sessionSource ? `  source ${h.sessionSource}` : ""}  delivered ${h.delivered}, pending ${h.pending}, failed ${h.failed}`,
      );
      return read(hooks, lines.length > 0 ? lines.join("\n") : "No webhooks.");
    }),
  );
  example(
    webhook.command("remove").description("Remove a webhook: nothing more is sent to it").argument("<id>", "the webhook's id (see webhook list)", int(1)),
    "proofgate webhook remove 2",
  ).action(
    act(out, (id: number) => async (api) => {
      await api.mutate("admin.removeWebhook", { id });
      return wrote({ id, removed: true }, `✓ Removed webhook #${id}`);
    }),
  );
  example(
    webhook.command("test").description("Queue a signed webhook.test delivery to a webhook").argument("<id>", "the webhook's id", int(1)),
    "proofgate webhook test 2",
  ).action(
    act(out, (id: number) => async (api) => {
      const queued = await api.mutate<{ id: number; deliveryId: number }>("admin.testWebhook", { id });
      const where = api.mode === "local" ? LOCAL_NOTE : "the server delivers it within a second";
      return wrote(queued, `✓ Queued test delivery #${queued.deliveryId} to webhook #${id} (${where}; see proofgate webhook log ${id})`);
    }),
  );
  example(
    webhook
      .command("log")
      .description("A webhook's delivery log, newest first: status, attempts, last error, next attempt")
      .argument("<id>", "the webhook's id", int(1))
      .option("--limit <n>", "how many deliveries", int(1, 200), 50),
    "proofgate webhook log 2",
  ).action(
    act(out, (id: number, options: { limit: number }) => async (api) => {
      const log = await api.query<DeliveryRow[]>("admin.webhookDeliveries", { id, limit: options.limit });
      const lines = log.map(
        (d) =>
          `#${d.id}  ${d.eventType} (event ${d.eventId})  ${d.status}  ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}${d.responseCode ? `  HTTP ${d.responseCode}` : ""}${d.status === "pending" ? `  next ${new Date(d.nextAttemptAt).toISOString()}` : ""}${d.lastError ? `  last error: ${d.lastError}` : ""}`,
      );
      return read(log, [...(lines.length > 0 ? lines : [`No deliveries for webhook #${id} yet.`]), RETENTION_NOTE].join("\n"));
    }),
  );
}
