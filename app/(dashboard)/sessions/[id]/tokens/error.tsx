"use client";

import { ErrorState } from "@/app/ui/states";
import { Button } from "@/app/ui/button";

/** A failed load of the token usage is shown as a failure, with a way to try again. */
export default function TokensError({ error, reset }: { error: Error; reset: () => void }) {
  return (
    <div className="space-y-3">
      <h2 className="text-xl font-semibold">Tokens</h2>
      <ErrorState title="Could not load the token usage" error={error} />
      <Button variant="secondary" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
