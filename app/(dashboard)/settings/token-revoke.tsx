"use client";

import { type ReactNode, useState } from "react";
import { ConfirmDialog } from "./confirm-dialog";

/** What a token list row shows as its status: revoked, expired (by the viewer's clock) or active. */
export function tokenState(token: { revokedAt: Date | null; expiresAt: Date | null }, now: number | null): { label: string; tone: "good" | "bad" | "warn" } {
  if (token.revokedAt) return { label: "revoked", tone: "bad" };
  if (token.expiresAt && now !== null && token.expiresAt.getTime() <= now) return { label: "expired", tone: "warn" };
  return { label: "active", tone: "good" };
}

/**
 * Revoking a token after a confirmation, for the admin's token list and a person's own: `ask(token)`
 * opens the dialog, `dialog` renders it with what the list says about the token; the server's
 * refusal is shown in it verbatim.
 */
export function useTokenRevoke<T extends { id: number }>(revoke: { mutateAsync: (input: { id: number }) => Promise<unknown>; isPending: boolean }) {
  const [revoking, setRevoking] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);

  function close() {
    setRevoking(null);
    setError(null);
  }

  async function confirm() {
    if (!revoking) return;
    setError(null);
    try {
      await revoke.mutateAsync({ id: revoking.id });
      close();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  }

  const dialog = (describe: (token: T) => ReactNode) => (
    <ConfirmDialog
      open={revoking !== null}
      title="Revoke this token?"
      confirmLabel="Revoke token"
      variant="danger"
      pending={revoke.isPending}
      error={error}
      onConfirm={confirm}
      onClose={close}
    >
      {revoking && describe(revoking)}
    </ConfirmDialog>
  );
  return { ask: setRevoking, dialog };
}
