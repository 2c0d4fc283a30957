"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { Button } from "@/app/ui/button";
import { Card } from "@/app/ui/card";
import { FormError } from "@/app/ui/field";
import { QueryFallback } from "@/app/ui/query-fallback";
import { EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { useViewer } from "../viewer";
import { ConfirmDialog } from "./confirm-dialog";
import { type FormErrors, toFormErrors } from "./form-errors";
import { InputField, SelectField } from "./form-field";
import { TableSkeleton } from "./table-skeleton";
import { USER_ROLES, type UserRole, roleSummary } from "./roles";

type User = inferRouterOutputs<AppRouter>["admin"]["users"][number];

const ROLE_OPTIONS = USER_ROLES.map((role) => ({ value: role, label: role }));
const ROLE_TONE = { viewer: "neutral", lead: "info", admin: "accent" } as const;
/** A compact select for a table cell (the form's controls are full width). */
const CELL_SELECT =
  "rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100";

export function UsersClient() {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[22rem_minmax(0,1fr)] lg:items-start">
      <CreateUserForm />
      <Card title="Users" id="users">
        <UsersTable />
      </Card>
    </div>
  );
}

const USER_FIELDS = ["email", "name", "password", "role"] as const;
type UserField = (typeof USER_FIELDS)[number];

function CreateUserForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FormErrors<UserField>>({ form: null, fields: {} });
  const [created, setCreated] = useState<User | null>(null);
  const [role, setRole] = useState<UserRole>("viewer");
  const create = useMutation(
    trpc.admin.createUser.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.admin.users.queryKey() }) }),
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setErrors({ form: null, fields: {} });
    setCreated(null);
    try {
      const name = String(data.get("name") ?? "").trim();
      const user = await create.mutateAsync({
        email: String(data.get("email") ?? ""),
        password: String(data.get("password") ?? ""),
        name: name === "" ? undefined : name,
        role,
      });
      setCreated(user);
      form.reset();
      setRole("viewer");
    } catch (error) {
      setErrors(toFormErrors(error, USER_FIELDS, { "admin.user_exists": "email" }));
    }
  }

  return (
    <Card title="Create a user" id="create-user">
      {/* The server's rules (naming the field) are shown under each field, in one style on every browser. */}
      <form onSubmit={onSubmit} noValidate className="space-y-3">
        <InputField label="Email" name="email" type="email" autoComplete="off" required error={errors.fields.email} />
        <InputField label="Name" name="name" autoComplete="off" hint="Optional: defaults to the part of the email before @." error={errors.fields.name} />
        <InputField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 10 characters. Give it to them privately."
          error={errors.fields.password}
        />
        <SelectField
          label="Role"
          name="role"
          value={role}
          onChange={(event) => setRole(event.target.value as UserRole)}
          options={ROLE_OPTIONS}
          hint={`${role}: ${roleSummary(role)}.`}
          error={errors.fields.role}
        />
        <FormError message={errors.form} />
        {created && (
          <p
            role="status"
            className="rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100"
          >
            Created {created.email} ({created.role}). They can sign in now.
          </p>
        )}
        <Button type="submit" className="w-full" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create user"}
        </Button>
      </form>
    </Card>
  );
}

interface RoleChange {
  user: User;
  role: UserRole;
}

function UsersTable() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const viewer = useViewer();
  const query = useQuery(trpc.admin.users.queryOptions());
  const [change, setChange] = useState<RoleChange | null>(null);
  const [error, setError] = useState<string | null>(null);
  const setRole = useMutation(
    trpc.admin.setUserRole.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.admin.users.queryKey() }) }),
  );
  const users = query.data;
  if (users === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the users">
        <TableSkeleton />
      </QueryFallback>
    );
  }

  if (users.length === 0)
    return (
      <EmptyState title="No users yet.">
        Create one with the form, or on the server: <code>proofgate user create --email … --password … --role lead</code>
      </EmptyState>
    );

  const isSelf = (user: User) => viewer.principalId === `user:${user.id}`;

  function close() {
    setChange(null);
    setError(null);
  }

  async function confirm() {
    if (!change) return;
    setError(null);
    try {
      await setRole.mutateAsync({ userId: change.user.id, role: change.role });
      const self = isSelf(change.user);
      close();
      // Your own role changed: the server-rendered parts (navigation, this page) must follow.
      if (self) router.refresh();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  }

  return (
    <>
      <div className="-mx-4 overflow-x-auto px-4">
        <table className="w-full text-left text-sm">
          <thead className="text-xs text-zinc-500 uppercase">
            <tr>
              <th scope="col" className="py-2 pr-3 font-medium">
                User
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                Role
              </th>
              <th scope="col" className="hidden py-2 pr-3 font-medium sm:table-cell">
                Created
              </th>
              <th scope="col" className="py-2 font-medium">
                Change role
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {users.map((user) => (
              <UserRow key={`${user.id}:${user.role}`} user={user} self={isSelf(user)} onChange={(role) => setChange({ user, role })} />
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={change !== null}
        title="Change role?"
        confirmLabel="Change role"
        variant={change && isSelf(change.user) ? "danger" : "primary"}
        pending={setRole.isPending}
        error={error}
        onConfirm={confirm}
        onClose={close}
      >
        {change && (
          <>
            <p>
              <strong className="break-all">{change.user.email}</strong> goes from <strong>{change.user.role}</strong> to <strong>{change.role}</strong>, from
              their next request on.
            </p>
            <p>
              As {change.role}: {roleSummary(change.role)}.
            </p>
            {isSelf(change.user) && change.role !== "admin" && (
              <p className="font-medium text-rose-700 dark:text-rose-300">This is you: you will no longer be able to open Settings.</p>
            )}
          </>
        )}
      </ConfirmDialog>
    </>
  );
}

function UserRow({ user, self, onChange }: { user: User; self: boolean; onChange: (role: UserRole) => void }) {
  const [role, setRole] = useState<UserRole>(user.role);
  const selectId = `role-${user.id}`;
  return (
    <tr>
      <td className="py-2 pr-3 align-top">
        <div className="font-medium">
          <span className="wrap-anywhere">{user.email}</span>
          {self && <span className="ml-1 text-xs font-normal whitespace-nowrap text-zinc-500">(you)</span>}
        </div>
        <div className="text-xs text-zinc-500">{user.name}</div>
      </td>
      <td className="py-2 pr-3 align-top">
        <Badge tone={ROLE_TONE[user.role]}>{user.role}</Badge>
      </td>
      <td className="hidden py-2 pr-3 align-top sm:table-cell">
        <Time at={user.createdAt} />
      </td>
      <td className="py-2 align-top">
        <div className="flex items-center gap-2">
          <label htmlFor={selectId} className="sr-only">
            New role for {user.email}
          </label>
          <select id={selectId} value={role} onChange={(event) => setRole(event.target.value as UserRole)} className={CELL_SELECT}>
            {ROLE_OPTIONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          <Button variant="secondary" disabled={role === user.role} onClick={() => onChange(role)} aria-label={`Change role of ${user.email}`}>
            Change
          </Button>
        </div>
      </td>
    </tr>
  );
}
