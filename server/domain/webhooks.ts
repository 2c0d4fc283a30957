/**
 * Notifications by webhook: which ledger events a subscription may ask for, how an `events` row
 * maps to one of them, the retry schedule, and the bodies sent (JSON, or a Slack message). Pure:
 * the outbox, the signing and the HTTP live in server/services/webhooks.
 */
import { EVENT_TYPES, TASK_MOVE_EVENTS } from "./event-types";
import { type ForbiddenAddressKind, forbiddenAddressKind, isLoopbackName } from "./ip-address";

/** What a subscription can ask to be told about. */
export const WEBHOOK_EVENTS = [
  "task.blocked",
  "task.reset_requested",
  "task.reset_approved",
  "task.reset_declined",
  "completion.rejected",
  "task.unverified_completion",
  "runtime.stop_held",
  "runtime.stop_unverified",
  "session.completed",
  "session.failed",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event a test delivery carries (`webhook test`); never subscribed to, sent to one subscription on demand. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What each event means, for the Settings form and the Slack text. */
export const WEBHOOK_EVENT_LABELS: Readonly<Record<WebhookEvent | typeof WEBHOOK_TEST_EVENT, string>> = {
  "task.blocked": "a task was blocked",
  "task.reset_requested": "a reset of a blocked task was requested",
  "task.reset_approved": "a reset was approved",
  "task.reset_declined": "a reset request was declined",
  "completion.rejected": "a completion check was rejected",
  "task.unverified_completion": "a completion was recorded without verification",
  "runtime.stop_held": "an agent's stop was held (the completion gate rejects)",
  "runtime.stop_unverified": "an agent's stop went through with the completion gate rejecting",
  "session.completed": "a session completed",
  "session.failed": "a session failed",
  "webhook.test": "a test delivery",
};

/** The `events` types that can ever notify: appends of any other type never look at subscriptions. */
type Classify = (data: Record<string, unknown> | null | undefined) => WebhookEvent | null;
const always =
  (event: WebhookEvent): Classify =>
  () =>
    event;

const BY_TYPE: ReadonlyMap<string, Classify> = new Map<string, Classify>([
  [TASK_MOVE_EVENTS.block, always("task.blocked")],
  [TASK_MOVE_EVENTS.request_reset, always("task.reset_requested")],
  [TASK_MOVE_EVENTS.approve_reset, always("task.reset_approved")],
  [TASK_MOVE_EVENTS.decline_reset, always("task.reset_declined")],
  [EVENT_TYPES.completionChecked, (d) => (d?.accepted === false ? "completion.rejected" : null)],
  [EVENT_TYPES.unverifiedCompletion, always("task.unverified_completion")],
  [EVENT_TYPES.runtimeStopHeld, always("runtime.stop_held")],
  [EVENT_TYPES.runtimeStopUnverified, always("runtime.stop_unverified")],
  [
    EVENT_TYPES.sessionStatusChanged,
    (d) => (d?.to === "completed" && d.from !== "completed" ? "session.completed" : d?.to === "failed" && d.from !== "failed" ? "session.failed" : null),
  ],
]);

/** The webhook event an `events` row is, or null when no subscription can want it. */
export function webhookEventOf(type: string, data: Record<string, unknown> | null | undefined): WebhookEvent | null {
  return BY_TYPE.get(type)?.(data) ?? null;
}

export interface RetryPolicy {
  /** The wait after the first failed attempt; doubled after each further one. */
  baseMs: number;
  /** The longest wait between two attempts. */
  maxMs: number;
  /** After this long since the event, a delivery that still fails is given up (`failed`). */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 5_000, maxMs: 3_600_000, giveUpAfterMs: 24 * 3_600_000 };

/**
 * When to try again after `attempts` failed attempts of a delivery created at `createdAt`, or null
 * to give up: exponential backoff (base, 2×base, 4×base… capped at maxMs) until giveUpAfterMs has passed.
 */
export function nextAttemptAt(policy: RetryPolicy, attempts: number, createdAt: number, now: number): number | null {
  const wait = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  const next = now + wait;
  return next - createdAt > policy.giveUpAfterMs ? null : next;
}

/** A receiver's address: absolute http or https, nothing else (no file:, no javascript:). The message is the rule. */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute http:// or https:// URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `must use http or https, not ${parsed.protocol.replace(/:$/, "")}`;
  if (parsed.username || parsed.password) return "must not carry a user name or password (use the signing secret)";
  return null;
}

/** The setting that lets webhooks reach loopback, private, link-local and unique-local addresses (a receiver on the same host or LAN). */
export const WEBHOOK_ALLOW_PRIVATE_VARIABLE = "PROOFGATE_WEBHOOK_ALLOW_PRIVATE";

const PUBLIC_ONLY = `webhooks reach public addresses only (${WEBHOOK_ALLOW_PRIVATE_VARIABLE}=1 on the server allows private ones)`;

const anAddress = (kind: ForbiddenAddressKind) => `${kind === "unspecified" ? "an" : "a"} ${kind} address`;

/** A URL's host without IPv6 brackets, or null when the URL does not parse. */
export function webhookHostname(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, "$1") || null;
  } catch {
    return null;
  }
}

/**
 * A receiver whose host is, as written, an address no delivery may reach: a loopback, private,
 * link-local, unique-local or otherwise non-public IP (in any spelling URL parsing accepts:
 * `0x7f.1`, `[::ffff:127.0.0.1]`), or `localhost`. A name is judged after DNS resolution, at each
 * delivery (resolvedAddressProblem). Null when allowed, or when `allowPrivate`.
 */
export function webhookTargetProblem(url: string, allowPrivate: boolean): string | null {
  const host = webhookHostname(url);
  if (allowPrivate || host === null) return null;
  if (isLoopbackName(host)) return `must not point to ${host}, a loopback name: ${PUBLIC_ONLY}`;
  const kind = forbiddenAddressKind(host);
  if (kind === null || kind === "not an IP address") return null;
  return `must not point to ${host}, ${anAddress(kind)}: ${PUBLIC_ONLY}`;
}

/**
 * Why a delivery to `host` may not go to the addresses it resolved to, or null when every one is
 * public (or `allowPrivate`). Any forbidden address refuses the whole answer: the connection is
 * pinned to the checked addresses, and a name that mixes public and private answers is not a receiver.
 * The message names the kind of address, never the address or the receiver's status.
 */
export function resolvedAddressProblem(host: string, addresses: readonly string[], allowPrivate: boolean): string | null {
  if (addresses.length === 0) return `${host} resolved to no address`;
  if (allowPrivate) return null;
  if (isLoopbackName(host)) return `refused: ${host} is a loopback name; ${PUBLIC_ONLY}`;
  for (const address of addresses) {
    const kind = forbiddenAddressKind(address);
    if (kind === "not an IP address") return `refused: ${host} resolved to something that is not an IP address`;
    if (kind) return `refused: ${host} resolves to ${anAddress(kind)}; ${PUBLIC_ONLY}`;
  }
  return null;
}

/** Standard Webhooks secrets: `whsec_` then the base64 of 24 to 64 random bytes. */
export function webhookSecretProblem(secret: string): string | null {
  if (!secret.startsWith("whsec_")) return "must start with whsec_ (a Standard Webhooks secret: whsec_ then base64)";
  const body = secret.slice("whsec_".length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) return "must be whsec_ followed by base64 (A–Z, a–z, 0–9, +, /, = padding)";
  const bytes = (body.length / 4) * 3 - (body.match(/={1,2}$/)?.[0].length ?? 0);
  if (bytes < 24 || bytes > 64) return `must hold 24 to 64 bytes of key after whsec_ (this one holds ${bytes})`;
  return null;
}

/** The `events` row a delivery reports, as the payload builders read it. */
export interface NotifiedEvent {
  id: number;
  at: Date;
  type: string;
  sessionId: string | null;
  entity: string;
  entityId: string | null;
  actor: string;
  role: string | null;
  data: Record<string, unknown> | null;
}

/** The dashboard page about an event: its task's card, its session, or nothing without a base URL. */
export function dashboardLink(baseUrl: string | undefined, event: Pick<NotifiedEvent, "sessionId" | "entity" | "data">): string | null {
  if (!baseUrl || !event.sessionId) return null;
  const session = `${baseUrl.replace(/(?<!\/)\/+$/, "")}/sessions/${encodeURIComponent(event.sessionId)}`;
  const key = event.data?.key;
  return event.entity === "task" && typeof key === "string" && key !== "" ? `${session}#${encodeURIComponent(`task-${key}`)}` : session;
}

/**
 * The JSON body of a delivery, in the Standard Webhooks shape `{ type, timestamp, data }`: the
 * webhook event, when it happened, and the ledger event it reports (its id in `events`, who did
 * what to which entity) with a link to the dashboard when the server knows its public URL.
 */
export function webhookPayload(kind: string, event: NotifiedEvent, baseUrl: string | undefined) {
  return {
    type: kind,
    timestamp: event.at.toISOString(),
    data: {
      eventId: event.id,
      eventType: event.type,
      sessionId: event.sessionId,
      entity: event.entity,
      entityId: event.entityId,
      actor: event.actor,
      role: event.role,
      details: event.data ?? {},
      url: dashboardLink(baseUrl, event),
    },
  };
}

/**
 * Slack's escaping for text it parses as mrkdwn (https://api.slack.com/reference/surfaces/formatting#escaping):
 * `&`, `<` and `>` become entities, so agent-provided text cannot make links, mentions
 * (`<!channel>`, `<@U…>`) or a fake "Open" link.
 */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** What the event is about, escaped: task keys, session ids and actors are agent-provided. */
const subjectOf = (event: NotifiedEvent) => {
  const key = typeof event.data?.key === "string" ? event.data.key : null;
  if (event.entity === "task" && key) return `task ${slackEscape(key)} in session ${slackEscape(event.sessionId ?? "?")}`;
  return slackEscape(event.sessionId ? `session ${event.sessionId}` : event.entity);
};

/** Slack's incoming-webhook message: a one-line `text` (notifications, fallbacks) and blocks with the link. */
export function slackMessage(kind: string, event: NotifiedEvent, baseUrl: string | undefined) {
  const label = WEBHOOK_EVENT_LABELS[kind as WebhookEvent] ?? kind;
  const link = dashboardLink(baseUrl, event);
  const reason = typeof event.data?.reason === "string" ? event.data.reason : null;
  const actor = slackEscape(event.actor);
  const text = `Proofgate: ${label} — ${subjectOf(event)} (by ${actor})`;
  const fields = [
    `*${label.charAt(0).toUpperCase()}${label.slice(1)}*`,
    `${subjectOf(event)}, by ${actor}`,
    ...(reason ? [`Reason: ${slackEscape(reason)}`] : []),
  ];
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: fields.join("\n") } },
      ...(link ? [{ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in Proofgate" }, url: link }] }] : []),
      { type: "context", elements: [{ type: "mrkdwn", text: `${slackEscape(kind)} · event #${event.id} · ${event.at.toISOString()}` }] },
    ],
  };
}

/** The events about a subscription itself, whose data once held the receiver's full URL. */
const WEBHOOK_ADMIN_EVENTS: ReadonlySet<string> = new Set(["admin.webhook_created", "admin.webhook_removed", "admin.webhook_tested"]);

/** A receiver's host (with its port), or null when the URL does not parse: never the path, which for Slack is the secret. */
export function webhookHost(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/**
 * An event's data as every reader sees it. A webhook's URL is a credential for most receivers
 * (Slack's path is the secret), so events about a subscription show its host alone. New events
 * are written that way; rows written before keep their `url` as history, and this is what keeps it
 * out of every read path (list, search, stream, CSV, overview).
 */
export function eventDataForReaders(type: string, data: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!data || !WEBHOOK_ADMIN_EVENTS.has(type) || !("url" in data)) return data;
  const { url, ...rest } = data;
  return { ...rest, host: typeof rest.host === "string" ? rest.host : typeof url === "string" ? webhookHost(url) : null };
}
