"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { authClient } from "@/app/auth-client";
import { useTRPC } from "@/app/trpc/client";
import { Button } from "@/app/ui/button";
import { Field, FormError } from "@/app/ui/field";

export function SetupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const create = useMutation(trpc.setup.createFirstAdmin.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    // A plain submit handler, not a form action: React resets a form after its action, and a refused
    // attempt must keep what was typed.
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(null);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    if (password !== form.get("confirm")) return setError("Confirm password: the two passwords differ.");
    try {
      await create.mutateAsync({ email, password, name: String(form.get("name") || "") || undefined });
    } catch (caught) {
      return setError(caught instanceof Error ? caught.message : String(caught));
    }
    const signedIn = await authClient.signIn.email({ email, password });
    if (signedIn.error) return router.replace("/sign-in");
    router.replace("/");
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4">
      <Field label="Email" name="email" type="email" autoComplete="username" required autoFocus />
      <Field label="Name" name="name" autoComplete="name" hint="Optional: shown beside what you do." />
      <Field label="Password" name="password" type="password" autoComplete="new-password" minLength={10} required hint="At least 10 characters." />
      <Field label="Confirm password" name="confirm" type="password" autoComplete="new-password" minLength={10} required />
      <FormError message={error} />
      <Button type="submit" className="w-full" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create admin account"}
      </Button>
    </form>
  );
}
