import { z } from "zod";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";
import { WEBHOOK_EVENTS, WEBHOOK_FORMATS, webhookSecretProblem, webhookTargetProblem, webhookUrlProblem } from "@/server/domain/webhooks";
import { privateTargetsAllowed } from "./targets";

const rule = "webhook.invalid_input";

export const WebhookUrl = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(2_000)
  .superRefine((url, issue) => {
    const problem = webhookUrlProblem(url);
    if (problem) issue.addIssue({ code: "custom", message: problem, params: { rule: "webhook.invalid_url" } });
  });

/**
 * A receiver the server may deliver to: a valid URL whose host is not, as written, a loopback,
 * private, link-local or unique-local address (unless PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1, read at
 * each check). A name is checked again after resolution at each delivery (targets.ts).
 */
export const ReceiverUrl = WebhookUrl.superRefine((url, issue) => {
  const problem = webhookUrlProblem(url) ? null : webhookTargetProblem(url, privateTargetsAllowed());
  if (problem) issue.addIssue({ code: "custom", message: problem, params: { rule: "webhook.private_address" } });
});

export const WebhookSecret = z.string().superRefine((secret, issue) => {
  const problem = webhookSecretProblem(secret);
  if (problem) issue.addIssue({ code: "custom", message: problem, params: { rule: "webhook.invalid_secret" } });
});

/** Zod reports a failed union as "Invalid input": say which event is unknown instead. */
function eventsProblem(input: unknown): string {
  const known = `all, or some of: ${WEBHOOK_EVENTS.join(", ")}`;
  if (!Array.isArray(input)) return `must be ${known}`;
  if (input.length === 0) return "must name at least one event (or all)";
  const unknown = input.filter((e) => !(WEBHOOK_EVENTS as readonly unknown[]).includes(e));
  return `unknown event ${unknown.map((e) => JSON.stringify(e)).join(", ")}: must be ${known}`;
}

const webhookFields = {
  url: WebhookUrl,
  /** The events to deliver, or "all" (the events added later too). */
  events: z.union([z.literal("all"), z.array(z.enum(WEBHOOK_EVENTS)).min(1, "must name at least one event (or all)")], {
    error: (issue) => eventsProblem(issue.input),
  }),
  /** A Standard Webhooks secret (whsec_…); generated when absent. */
  secret: WebhookSecret.optional(),
  format: z.enum(WEBHOOK_FORMATS).default("json"),
  /** Only sessions from this source. */
  sessionSource: z.enum(SESSION_SOURCES).optional(),
};

export const CreateWebhookInput = z.object({ ...webhookFields, url: ReceiverUrl }).strict();
/**
 * CreateWebhookInput without the receiver-address rule, for a caller that checks before it asks
 * the server (the CLI in remote mode): whether a private receiver is allowed is the server's setting.
 */
export const CreateWebhookFields = z.object(webhookFields).strict();
export type CreateWebhookInput = z.input<typeof CreateWebhookInput>;

export const WebhookIdInput = z.object({ id: z.number().int().min(1) }).strict();
export type WebhookIdInput = z.infer<typeof WebhookIdInput>;

export const WebhookDeliveriesInput = z.object({ id: z.number().int().min(1), limit: z.number().int().min(1).max(200).default(50) }).strict();
export type WebhookDeliveriesInput = z.input<typeof WebhookDeliveriesInput>;

export const WEBHOOK_INVALID_INPUT = rule;
