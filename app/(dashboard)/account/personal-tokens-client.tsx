"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type FormEvent, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { Button } from "@/app/ui/button";
import { Card } from "@/app/ui/card";
import { FormError } from "@/app/ui/field";
import { QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { Time, useNow } from "@/app/ui/time";
import { type FormErrors, toFormErrors } from "../settings/form-errors";
import { InputField } from "../settings/form-field";
import { NewTokenPanel } from "../settings/new-token-panel";
import { TableSkeleton } from "../settings/table-skeleton";
import { TokenExpiryField } from "../settings/token-expiry-field";
import { tokenState, useTokenRevoke } from "../settings/token-revoke";
import { useViewer } from "../viewer";

type Token = inferRouterOutputs<AppRouter>["account"]["tokens"][number];
type NewToken = inferRouterOutputs<AppRouter>["account"]["createToken"];

export function PersonalTokensClient() {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[22rem_minmax(0,1fr)] lg:items-start">
      <CreatePersonalTokenForm />
      <Card title="Your personal API tokens" id="personal-tokens">
        <PersonalTokensTable />
      </Card>
    </div>
  );
}

const FIELDS = ["name", "expiresInDays"] as const;
type Field = (typeof FIELDS)[number];

function CreatePersonalTokenForm() {
  const trpc = useTRPC();
  const viewer = useViewer();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FormErrors<Field>>({ form: null, fields: {} });
  const [created, setCreated] = useState<NewToken | null>(null);
  const create = useMutation(
    trpc.account.createToken.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.account.tokens.queryKey() }) }),
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setErrors({ form: null, fields: {} });
    const days = String(data.get("expiresInDays") ?? "").trim();
    try {
      setCreated(await create.mutateAsync({ name: String(data.get("name") ?? ""), expiresInDays: days === "" ? undefined : Number(days) }));
      form.reset();
    } catch (error) {
      setErrors(toFormErrors(error, FIELDS, { "account.token_limit": "name" }));
    }
  }

  if (created) {
    return (
      <NewTokenPanel token={created.token} onDone={() => setCreated(null)}>
        <p>
          <strong className="wrap-anywhere">{created.name}</strong> acts as you ({viewer.label}) with your role
          {created.expiresAt ? (
            <>
              {" "}
              until <Time at={created.expiresAt} relative={false} />
            </>
          ) : null}
          .
        </p>
      </NewTokenPanel>
    );
  }

  return (
    <Card title="Create a personal API token" id="create-personal-token">
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
        For your own scripts: a personal token acts as you, with your role as it is when the script calls (now {viewer.role}), and what it does is recorded as
        yours, noted as done through the token.
      </p>
      <form onSubmit={onSubmit} noValidate className="space-y-3">
        <InputField label="Name" name="name" autoComplete="off" required hint="What uses it, e.g. release script on my laptop." error={errors.fields.name} />
        <TokenExpiryField error={errors.fields.expiresInDays} />
        <FormError message={errors.form} />
        <Button type="submit" className="w-full" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create token"}
        </Button>
      </form>
    </Card>
  );
}

function PersonalTokensTable() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const now = useNow();
  const query = useQuery(trpc.account.tokens.queryOptions());
  const revoke = useMutation(
    trpc.account.revokeToken.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.account.tokens.queryKey() }) }),
  );
  const { ask, dialog } = useTokenRevoke<Token>(revoke);
  const tokens = query.data;
  if (tokens === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load your tokens">
        <TableSkeleton />
      </QueryFallback>
    );
  }

  if (tokens.length === 0) {
    return (
      <EmptyState title="You have no personal API tokens.">
        Create one to script what you do here, e.g. <Code>proofgate --url {"<this address>"} --token pg_… session list</Code>.
      </EmptyState>
    );
  }

  return (
    <>
      <div className="-mx-4 overflow-x-auto px-4">
        <table className="w-full text-left text-sm">
          <thead className="text-xs text-zinc-500 uppercase">
            <tr>
              <th scope="col" className="py-2 pr-3 font-medium">
                Token
              </th>
              <th scope="col" className="hidden py-2 pr-3 font-medium sm:table-cell">
                Created
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                Last used
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                Status
              </th>
              <th scope="col" className="py-2 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {tokens.map((token) => {
              const state = tokenState(token, now);
              return (
                <tr key={token.id}>
                  <th scope="row" className="py-2 pr-3 text-left align-top font-normal">
                    <div className="font-medium wrap-anywhere">{token.name}</div>
                    <div className="font-mono text-xs text-zinc-500">{token.prefix}…</div>
                  </th>
                  <td className="hidden py-2 pr-3 align-top sm:table-cell">
                    <Time at={token.createdAt} />
                  </td>
                  <td className="py-2 pr-3 align-top">{token.lastUsedAt ? <Time at={token.lastUsedAt} /> : <span className="text-zinc-500">never</span>}</td>
                  <td className="py-2 pr-3 align-top">
                    <Badge tone={state.tone}>{state.label}</Badge>
                    {token.revokedAt && (
                      <div className="text-xs text-zinc-500">
                        <Time at={token.revokedAt} />
                      </div>
                    )}
                    {!token.revokedAt && (
                      <div className="text-xs text-zinc-500">
                        {token.expiresAt ? (
                          <>
                            {state.label === "expired" ? "expired" : "expires"} <Time at={token.expiresAt} relative={false} />
                          </>
                        ) : (
                          "never expires"
                        )}
                      </div>
                    )}
                  </td>
                  <td className="py-2 text-right align-top">
                    {!token.revokedAt && (
                      <Button variant="secondary" onClick={() => ask(token)} aria-label={`Revoke ${token.name}`}>
                        Revoke
                      </Button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {dialog((t) => (
        <>
          <p>
            <strong className="break-all">{t.name}</strong> (<span className="font-mono">{t.prefix}…</span>) stops working at once: every request with it gets
            401.
          </p>
          <p>This cannot be undone; create a new token if you need one again.</p>
        </>
      ))}
    </>
  );
}
