import { queryGet } from "@/db/query";
import { randomBytes } from "node:crypto";
import { webhookSubscriptions } from "@/db/schema";
import { authorize } from "@/server/domain/permissions";
import { webhookHost } from "@/server/domain/webhooks";
import { type ServiceContext, appendEvent, write } from "../context";
import { parseInput } from "../parse-input";
import { CreateWebhookInput, WEBHOOK_INVALID_INPUT } from "./schemas";
import { sealSecret } from "./secret-box";

export interface CreatedWebhook {
  id: number;
  url: string;
  events: string[] | "all";
  format: "json" | "slack";
  sessionSource: string | null;
  /** The signing secret: shown this once, stored sealed (secret-box.ts). */
  secret: string;
}

/**
 * Subscribe a receiver to events (admins). The URL and a given secret are checked before anything
 * is written; without a secret one is generated. The secret is returned once and stored sealed.
 */
export async function createWebhook(ctx: ServiceContext, raw: CreateWebhookInput): Promise<CreatedWebhook> {
  authorize(ctx.actor, "admin.webhooks", "create webhooks");
  const input = parseInput(CreateWebhookInput, raw, WEBHOOK_INVALID_INPUT);
  const secret = input.secret ?? `whsec_${randomBytes(32).toString("base64")}`;
  const all = input.events === "all";
  const events = all ? [] : [...new Set(input.events)];
  return write(ctx, async (tx) => {
    const row = await queryGet(
      tx
        .insert(webhookSubscriptions)
        .values({
          url: input.url,
          events,
          allEvents: all,
          format: input.format,
          sessionSource: input.sessionSource ?? null,
          secretSealed: sealSecret(ctx.db, secret),
          createdBy: ctx.actor.label,
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: "admin.webhook_created",
      sessionId: null,
      entity: "webhook",
      entityId: row.id,
      data: { host: webhookHost(row.url), events: all ? "all" : events, format: row.format, sessionSource: row.sessionSource },
    });
    return { id: row.id, url: row.url, events: all ? "all" : events, format: row.format, sessionSource: row.sessionSource, secret };
  });
}
