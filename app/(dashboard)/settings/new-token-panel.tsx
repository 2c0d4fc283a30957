"use client";

import { type ReactNode, useState } from "react";
import { Button } from "@/app/ui/button";
import { Card } from "@/app/ui/card";
import { Code } from "@/app/ui/states";

/**
 * The only time a new token's text exists outside the caller's hands: only its hash is stored.
 * Used for agent tokens (Settings → API tokens) and personal tokens (Account).
 */
export function NewTokenPanel({ token, children, onDone }: { token: string; children: ReactNode; onDone: () => void }) {
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");

  async function copyToken() {
    try {
      await navigator.clipboard.writeText(token);
      setCopy("copied");
    } catch {
      setCopy("failed");
    }
  }

  return (
    <Card title="Copy the new token now" id="new-token">
      <div className="space-y-3 text-sm">
        <p
          role="alert"
          className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          This is the only time Proofgate shows this token. Only a hash of it is stored: if it is lost, revoke it and create another.
        </p>
        {children}
        <label className="block">
          <span className="mb-1 block font-medium">New API token</span>
          <input
            readOnly
            value={token}
            onFocus={(event) => event.currentTarget.select()}
            className="w-full rounded-md border border-zinc-300 bg-zinc-50 px-3 py-2 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-950"
          />
        </label>
        <div className="flex flex-wrap items-center gap-2">
          <Button onClick={copyToken}>Copy token</Button>
          <span role="status" className="text-xs text-zinc-600 dark:text-zinc-400">
            {copy === "copied" ? "Copied to the clipboard." : copy === "failed" ? "The browser refused the clipboard: select the text and copy it." : ""}
          </span>
        </div>
        <p className="text-zinc-600 dark:text-zinc-400">
          Send it as <Code>Authorization: Bearer …</Code>; the command line takes <Code>--token</Code> or <Code>PROOFGATE_TOKEN</Code> with <Code>--url</Code>.
        </p>
        <Button variant="secondary" className="w-full" onClick={onDone}>
          I have saved it
        </Button>
      </div>
    </Card>
  );
}
