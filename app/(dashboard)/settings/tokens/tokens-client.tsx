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
import { NewTokenPanel } from "../new-token-panel";
import { type FormErrors, toFormErrors } from "../form-errors";
import { InputField, SelectField } from "../form-field";
import { TableSkeleton } from "../table-skeleton";
import { TokenExpiryField } from "../token-expiry-field";
import { tokenState, useTokenRevoke } from "../token-revoke";
import { TOKEN_ROLES, type TokenRole, roleSummary } from "../roles";

type Token = inferRouterOutputs<AppRouter>["admin"]["tokens"][number];
type NewToken = inferRouterOutputs<AppRouter>["admin"]["createToken"];

const ROLE_OPTIONS = TOKEN_ROLES.map((role) => ({ value: role, label: role }));

export function TokensClient() {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[22rem_minmax(0,1fr)] lg:items-start">
      <CreateTokenForm />
      <Card title="API tokens" id="tokens">
        <TokensTable />
      </Card>
    </div>
  );
}

const TOKEN_FIELDS = ["name", "role", "expiresInDays"] as const;
type TokenField = (typeof TOKEN_FIELDS)[number];

function CreateTokenForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FormErrors<TokenField>>({ form: null, fields: {} });
  const [role, setRole] = useState<TokenRole>("agent");
  const [created, setCreated] = useState<NewToken | null>(null);
  const create = useMutation(
    trpc.admin.createToken.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.admin.tokens.queryKey() }) }),
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setErrors({ form: null, fields: {} });
    const days = String(data.get("expiresInDays") ?? "").trim();
    try {
      const token = await create.mutateAsync({ name: String(data.get("name") ?? ""), role, expiresInDays: days === "" ? undefined : Number(days) });
      setCreated(token);
      form.reset();
    } catch (error) {
      setErrors(toFormErrors(error, TOKEN_FIELDS));
    }
  }

  if (created) {
    return (
      <NewTokenPanel token={created.token} onDone={() => setCreated(null)}>
        <p>
          <strong>{created.name}</strong> · role <strong>{created.role}</strong>
        </p>
      </NewTokenPanel>
    );
  }

  return (
    <Card title="Create an API token" id="create-token">
      <form onSubmit={onSubmit} noValidate className="space-y-3">
        <InputField
          label="Name"
          name="name"
          autoComplete="off"
          required
          hint="Who or what uses it, e.g. developer agents on ci-3. It is the agent label unless the caller sends its own."
          error={errors.fields.name}
        />
        <SelectField
          label="Role"
          name="role"
          value={role}
          onChange={(event) => setRole(event.target.value as TokenRole)}
          options={ROLE_OPTIONS}
          hint={`${role}: ${roleSummary(role)}.`}
          error={errors.fields.role}
        />
        <TokenExpiryField error={errors.fields.expiresInDays} />
        <FormError message={errors.form} />
        <Button type="submit" className="w-full" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create token"}
        </Button>
      </form>
    </Card>
  );
}

function TokensTable() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const now = useNow();
  const query = useQuery(trpc.admin.tokens.queryOptions());
  const revoke = useMutation(
    trpc.admin.revokeToken.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.admin.tokens.queryKey() }) }),
  );
  const { ask, dialog } = useTokenRevoke<Token>(revoke);
  const tokens = query.data;
  if (tokens === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the API tokens">
        <TableSkeleton />
      </QueryFallback>
    );
  }

  if (tokens.length === 0) {
    return (
      <EmptyState title="No API tokens yet.">
        Create one for each agent or script that reports to Proofgate, with the narrowest role it needs — or on the server:{" "}
        <Code>proofgate token create --name developer-agents --role agent</Code>
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
              <th scope="col" className="py-2 pr-3 font-medium">
                Role
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
                  <td className="py-2 pr-3 align-top">
                    <div className="font-medium wrap-anywhere">{token.name}</div>
                    <div className="font-mono text-xs text-zinc-500">{token.prefix}…</div>
                    {token.owner && <div className="text-xs wrap-anywhere text-zinc-500">personal token of {token.owner}</div>}
                  </td>
                  <td className="py-2 pr-3 align-top">
                    <Badge>{token.role}</Badge>
                    {token.owner && <div className="text-xs text-zinc-500">the owner&apos;s role</div>}
                  </td>
                  <td className="hidden py-2 pr-3 align-top sm:table-cell">
                    <Time at={token.createdAt} />
                    <div className="text-xs wrap-anywhere text-zinc-500">by {token.createdBy}</div>
                  </td>
                  <td className="py-2 pr-3 align-top">{token.lastUsedAt ? <Time at={token.lastUsedAt} /> : <span className="text-zinc-500">never</span>}</td>
                  <td className="py-2 pr-3 align-top">
                    <Badge tone={state.tone}>{state.label}</Badge>
                    {token.revokedAt && (
                      <div className="text-xs text-zinc-500">
                        <Time at={token.revokedAt} />
                      </div>
                    )}
                    {!token.revokedAt && token.expiresAt && (
                      <div className="text-xs text-zinc-500">
                        {state.label === "expired" ? "expired" : "expires"} <Time at={token.expiresAt} relative={false} />
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
            <strong className="break-all">{t.name}</strong> ({t.owner ? `personal token of ${t.owner}` : t.role}, <span className="font-mono">{t.prefix}…</span>
            ) stops working at once: every request with it gets 401.
          </p>
          <p>This cannot be undone; create a new token if it is needed again.</p>
        </>
      ))}
    </>
  );
}
