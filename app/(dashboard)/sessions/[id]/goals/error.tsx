"use client";

import { ErrorState } from "@/app/ui/states";
import { Button } from "@/app/ui/button";

/** A failed load of the goals is shown as a failure, with a way to try again. */
export default function GoalsError({ error, reset }: { error: Error; reset: () => void }) {
  return (
    <div className="space-y-3">
      <h2 className="text-xl font-semibold">Goals</h2>
      <ErrorState title="Could not load the goals" error={error} />
      <Button variant="secondary" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
