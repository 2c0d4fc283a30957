"use client";

import { ErrorState } from "@/app/ui/states";
import { Button } from "@/app/ui/button";

/** A failed load of the logs is shown as a failure, with a way to try again. */
export default function LogsError({ error, reset }: { error: Error; reset: () => void }) {
  return (
    <div className="space-y-3">
      <h2 className="text-xl font-semibold">Logs and reasoning</h2>
      <ErrorState title="Could not load the logs" error={error} />
      <Button variant="secondary" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
