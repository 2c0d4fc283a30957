"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { authClient } from "@/app/auth-client";
import { Button } from "@/app/ui/button";
import { Field, FormError } from "@/app/ui/field";

export function SignInForm({ next }: { next: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    // A plain submit handler, not a form action: React resets a form after its action, and a refused
    // attempt must keep what was typed.
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const { error } = await authClient.signIn.email({ email: String(form.get("email")), password: String(form.get("password")) });
    if (error) {
      setBusy(false);
      setError(
        error.status === 429
          ? "Too many sign-in attempts: wait a minute and try again."
          : error.status === 401
            ? "Wrong email or password."
            : (error.message ?? "Sign-in failed."),
      );
      return;
    }
    router.replace(next);
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4">
      <Field label="Email" name="email" type="email" autoComplete="username" required autoFocus />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      <FormError message={error} />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </Button>
      <p className="text-xs text-zinc-500">
        No account? An admin creates one in Settings, or on the server: <code>proofgate user create</code>.
      </p>
    </form>
  );
}
