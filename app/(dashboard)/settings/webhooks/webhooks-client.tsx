"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type FormEvent, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_LABELS, WEBHOOK_FORMATS, type WebhookEvent } from "@/server/domain/webhooks";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";
import { useTRPC } from "@/app/trpc/client";
import { Badge, type Tone } from "@/app/ui/badge";
import { Button } from "@/app/ui/button";
import { Card } from "@/app/ui/card";
import { FormError } from "@/app/ui/field";
import { QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { ConfirmDialog } from "../confirm-dialog";
import { type FormErrors, toFormErrors } from "../form-errors";
import { InputField, SelectField } from "../form-field";
import { TableSkeleton } from "../table-skeleton";

type Webhook = inferRouterOutputs<AppRouter>["admin"]["webhooks"][number];
type NewWebhook = inferRouterOutputs<AppRouter>["admin"]["createWebhook"];
type Delivery = inferRouterOutputs<AppRouter>["admin"]["webhookDeliveries"][number];

const FORMAT_OPTIONS = WEBHOOK_FORMATS.map((format) => ({ value: format, label: format === "json" ? "JSON (Standard Webhooks)" : "Slack message" }));
const SOURCE_OPTIONS = [{ value: "", label: "Every session" }, ...SESSION_SOURCES.map((source) => ({ value: source, label: `Only ${source} sessions` }))];

export function WebhooksClient() {
  const [selected, setSelected] = useState<number | null>(null);
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[22rem_minmax(0,1fr)] lg:items-start">
      <CreateWebhookForm />
      <div className="min-w-0 space-y-6">
        <Card title="Webhooks" id="webhooks">
          <WebhooksTable selected={selected} onSelect={setSelected} />
        </Card>
        {selected !== null && <DeliveryLog id={selected} />}
      </div>
    </div>
  );
}

const WEBHOOK_FIELDS = ["url", "events", "format", "sessionSource", "secret"] as const;
type WebhookField = (typeof WEBHOOK_FIELDS)[number];

function CreateWebhookForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FormErrors<WebhookField>>({ form: null, fields: {} });
  const [all, setAll] = useState(true);
  const [format, setFormat] = useState<(typeof WEBHOOK_FORMATS)[number]>("json");
  const [source, setSource] = useState("");
  const [created, setCreated] = useState<NewWebhook | null>(null);
  const create = useMutation(
    trpc.admin.createWebhook.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.admin.webhooks.queryKey() }) }),
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setErrors({ form: null, fields: {} });
    const secret = String(data.get("secret") ?? "").trim();
    try {
      const webhook = await create.mutateAsync({
        url: String(data.get("url") ?? ""),
        events: all ? "all" : (data.getAll("events").map(String) as WebhookEvent[]),
        format,
        ...(source ? { sessionSource: source as (typeof SESSION_SOURCES)[number] } : {}),
        ...(secret ? { secret } : {}),
      });
      setCreated(webhook);
      form.reset();
      setAll(true);
    } catch (error) {
      setErrors(toFormErrors(error, WEBHOOK_FIELDS));
    }
  }

  if (created) return <NewWebhookPanel webhook={created} onDone={() => setCreated(null)} />;

  return (
    <Card title="Add a webhook" id="create-webhook">
      <form onSubmit={onSubmit} noValidate className="space-y-3">
        <InputField
          label="Receiver URL"
          name="url"
          type="url"
          autoComplete="off"
          required
          placeholder="https://hooks.example.com/proofgate"
          hint="http:// or https://. Proofgate POSTs each event there, signed."
          error={errors.fields.url}
        />
        <fieldset className="text-sm" aria-describedby={errors.fields.events ? "webhook-events-error" : undefined}>
          <legend className="mb-1 font-medium">Events</legend>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={all} onChange={(event) => setAll(event.target.checked)} />
            All events, including ones added later
          </label>
          {!all && (
            <div className="mt-2 space-y-1 border-l border-zinc-200 pl-3 dark:border-zinc-800">
              {WEBHOOK_EVENTS.map((event) => (
                <label key={event} className="flex items-start gap-2">
                  <input type="checkbox" name="events" value={event} className="mt-1" />
                  <span>
                    {WEBHOOK_EVENT_LABELS[event]} <span className="font-mono text-xs text-zinc-500">{event}</span>
                  </span>
                </label>
              ))}
            </div>
          )}
          {errors.fields.events && (
            <p id="webhook-events-error" className="mt-1 text-xs font-medium text-rose-700 dark:text-rose-300">
              {errors.fields.events}
            </p>
          )}
        </fieldset>
        <SelectField
          label="Format"
          name="format"
          value={format}
          onChange={(event) => setFormat(event.target.value as typeof format)}
          options={FORMAT_OPTIONS}
          hint={format === "slack" ? "A Slack incoming-webhook message with a link to the task." : "The event as JSON: { type, timestamp, data }."}
          error={errors.fields.format}
        />
        <SelectField
          label="Sessions"
          name="sessionSource"
          value={source}
          onChange={(event) => setSource(event.target.value)}
          options={SOURCE_OPTIONS}
          error={errors.fields.sessionSource}
        />
        <InputField
          label="Signing secret (optional)"
          name="secret"
          autoComplete="off"
          placeholder="whsec_…"
          hint="A Standard Webhooks secret the receiver already has; empty: Proofgate makes one and shows it once."
          error={errors.fields.secret}
        />
        <FormError message={errors.form} />
        <Button type="submit" className="w-full" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add webhook"}
        </Button>
      </form>
    </Card>
  );
}

/** The only time the signing secret is shown: it is stored encrypted and never returned again. */
function NewWebhookPanel({ webhook, onDone }: { webhook: NewWebhook; onDone: () => void }) {
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");
  async function copySecret() {
    try {
      await navigator.clipboard.writeText(webhook.secret);
      setCopy("copied");
    } catch {
      setCopy("failed");
    }
  }
  return (
    <Card title="Copy the signing secret now" id="new-webhook">
      <div className="space-y-3 text-sm">
        <p
          role="alert"
          className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          This is the only time Proofgate shows this secret. The receiver needs it to check signatures; if it is lost, remove the webhook and add it again.
        </p>
        <p className="wrap-anywhere">
          Webhook #{webhook.id} → <strong>{webhook.url}</strong>
        </p>
        <label className="block">
          <span className="mb-1 block font-medium">Signing secret</span>
          <input
            readOnly
            value={webhook.secret}
            onFocus={(event) => event.currentTarget.select()}
            className="w-full rounded-md border border-zinc-300 bg-zinc-50 px-3 py-2 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-950"
          />
        </label>
        <div className="flex flex-wrap items-center gap-2">
          <Button onClick={copySecret}>Copy secret</Button>
          <span role="status" className="text-xs text-zinc-600 dark:text-zinc-400">
            {copy === "copied" ? "Copied to the clipboard." : copy === "failed" ? "The browser refused the clipboard: select the text and copy it." : ""}
          </span>
        </div>
        <p className="text-zinc-600 dark:text-zinc-400">
          Each delivery carries <Code>webhook-id</Code>, <Code>webhook-timestamp</Code> and <Code>webhook-signature</Code> (Standard Webhooks): verify them with
          any Standard Webhooks library.
        </p>
        <Button variant="secondary" className="w-full" onClick={onDone}>
          I have saved it
        </Button>
      </div>
    </Card>
  );
}

function WebhooksTable({ selected, onSelect }: { selected: number | null; onSelect: (id: number | null) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const query = useQuery({ ...trpc.admin.webhooks.queryOptions(), refetchInterval: 3_000 });
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.admin.webhooks.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.admin.webhookDeliveries.queryKey() }),
    ]);
  // Removing never refreshes the removed webhook's delivery log: once the row is gone, that query can only answer 404.
  const remove = useMutation(
    trpc.admin.removeWebhook.mutationOptions({
      onSuccess: (_result, { id }) => {
        queryClient.removeQueries({ queryKey: trpc.admin.webhookDeliveries.queryKey({ id }) });
        return queryClient.invalidateQueries({ queryKey: trpc.admin.webhooks.queryKey() });
      },
    }),
  );
  const test = useMutation(trpc.admin.testWebhook.mutationOptions({ onSuccess: refresh }));
  const webhooks = query.data;
  if (webhooks === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the webhooks">
        <TableSkeleton />
      </QueryFallback>
    );
  }
  if (webhooks.length === 0) {
    return (
      <EmptyState title="No webhooks yet.">
        Add one to tell a receiver (a Slack channel, a pager, a script) when a task is blocked, a reset is asked for or a completion is rejected — or on the
        server: <Code>proofgate webhook add https://hooks.example.com/pg --events all</Code>
      </EmptyState>
    );
  }

  async function sendTest(webhook: Webhook) {
    setNotice(null);
    try {
      const queued = await test.mutateAsync({ id: webhook.id });
      onSelect(webhook.id);
      setNotice(`Test delivery #${queued.deliveryId} queued for webhook #${webhook.id}: its result appears in the delivery log.`);
    } catch (caught) {
      setNotice(caught instanceof Error ? caught.message : String(caught));
    }
  }

  function close() {
    setRemoving(null);
    setError(null);
  }

  async function confirm() {
    if (!removing) return;
    setError(null);
    const { id } = removing;
    // Close its delivery log first and stop any fetch of it in flight, so nothing polls a webhook the server is deleting.
    if (selected === id) onSelect(null);
    await queryClient.cancelQueries({ queryKey: trpc.admin.webhookDeliveries.queryKey({ id }) });
    try {
      await remove.mutateAsync({ id });
      close();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  }

  return (
    <>
      <p role="status" className="mb-2 text-sm text-zinc-600 empty:hidden dark:text-zinc-400">
        {notice}
      </p>
      <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
        {webhooks.map((webhook) => (
          <li key={webhook.id} className="py-3" aria-label={`Webhook #${webhook.id}`}>
            <div className="flex flex-wrap items-start justify-between gap-2">
              <div className="min-w-0">
                <div className="font-mono text-sm wrap-anywhere">{webhook.url}</div>
                <div className="mt-1 flex flex-wrap gap-1 text-xs">
                  <Badge>#{webhook.id}</Badge>
                  <Badge tone="info">{webhook.format}</Badge>
                  <Badge>{webhook.events === "all" ? "all events" : `${webhook.events.length} event${webhook.events.length === 1 ? "" : "s"}`}</Badge>
                  {webhook.sessionSource && <Badge>{webhook.sessionSource} sessions</Badge>}
                </div>
                {webhook.events !== "all" && <div className="mt-1 font-mono text-xs wrap-anywhere text-zinc-500">{webhook.events.join(", ")}</div>}
                <div className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                  {webhook.delivered} delivered · {webhook.pending} pending · {webhook.failed} failed · added <Time at={webhook.createdAt} /> by{" "}
                  {webhook.createdBy}
                </div>
              </div>
              <div className="flex flex-wrap gap-2">
                <Button
                  variant="secondary"
                  onClick={() => void sendTest(webhook)}
                  disabled={test.isPending}
                  aria-label={`Send a test to webhook #${webhook.id}`}
                >
                  Send test
                </Button>
                <Button
                  variant={selected === webhook.id ? "primary" : "secondary"}
                  aria-pressed={selected === webhook.id}
                  onClick={() => onSelect(selected === webhook.id ? null : webhook.id)}
                  aria-label={`Delivery log of webhook #${webhook.id}`}
                >
                  Delivery log
                </Button>
                <Button variant="secondary" onClick={() => setRemoving(webhook)} aria-label={`Remove webhook #${webhook.id}`}>
                  Remove
                </Button>
              </div>
            </div>
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={removing !== null}
        title="Remove this webhook?"
        confirmLabel="Remove webhook"
        variant="danger"
        pending={remove.isPending}
        error={error}
        onConfirm={confirm}
        onClose={close}
      >
        {removing && (
          <>
            <p>
              Nothing more is sent to <strong className="break-all">{removing.url}</strong>, pending deliveries included, and its delivery log is deleted.
            </p>
            <p>This cannot be undone; add the webhook again (with a new secret) if it is needed.</p>
          </>
        )}
      </ConfirmDialog>
    </>
  );
}

const STATUS_TONE: Record<Delivery["status"], Tone> = { delivered: "good", pending: "warn", failed: "bad" };

function DeliveryLog({ id }: { id: number }) {
  const trpc = useTRPC();
  const query = useQuery({ ...trpc.admin.webhookDeliveries.queryOptions({ id }), refetchInterval: 2_000 });
  const deliveries = query.data;
  return (
    <Card title={`Delivery log of webhook #${id}`} id="delivery-log">
      {deliveries === undefined ? (
        <QueryFallback query={query} errorTitle="Could not load the delivery log">
          <TableSkeleton />
        </QueryFallback>
      ) : deliveries.length === 0 ? (
        <EmptyState title="Nothing delivered yet.">Deliveries appear here when a subscribed event happens, or after Send test.</EmptyState>
      ) : (
        <div className="-mx-4 overflow-x-auto px-4">
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-zinc-500 uppercase">
              <tr>
                <th scope="col" className="py-2 pr-3 font-medium">
                  Event
                </th>
                <th scope="col" className="py-2 pr-3 font-medium">
                  Status
                </th>
                <th scope="col" className="py-2 pr-3 font-medium">
                  Attempts
                </th>
                <th scope="col" className="py-2 font-medium">
                  Last answer
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <td className="py-2 pr-3 align-top">
                    <div className="font-mono text-xs">{delivery.eventType}</div>
                    <div className="text-xs text-zinc-500">
                      event #{delivery.eventId} · <Time at={delivery.createdAt} />
                    </div>
                  </td>
                  <td className="py-2 pr-3 align-top">
                    <Badge tone={STATUS_TONE[delivery.status]}>{delivery.status}</Badge>
                    {delivery.status === "pending" && delivery.attempts > 0 && (
                      <div className="text-xs text-zinc-500">
                        next <Time at={delivery.nextAttemptAt} />
                      </div>
                    )}
                  </td>
                  <td className="py-2 pr-3 align-top">{delivery.attempts}</td>
                  <td className="py-2 align-top text-xs">
                    {delivery.responseCode !== null && <div>HTTP {delivery.responseCode}</div>}
                    {delivery.lastError && <div className="wrap-anywhere text-rose-700 dark:text-rose-300">{delivery.lastError}</div>}
                    {delivery.deliveredAt && (
                      <div className="text-zinc-500">
                        delivered <Time at={delivery.deliveredAt} />
                      </div>
                    )}
                    {delivery.attempts === 0 && <span className="text-zinc-500">not tried yet</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {/* The server's dispatcher deletes them (server/services/webhooks/retention.ts: DEFAULT_LOG_DAYS). */}
      <p className="mt-3 text-xs text-zinc-500">
        Delivered and failed deliveries are kept 30 days after their last attempt, unless the server sets PROOFGATE_WEBHOOK_LOG_DAYS.
      </p>
    </Card>
  );
}
