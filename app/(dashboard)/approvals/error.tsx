"use client";

import { Button } from "@/app/ui/button";
import { ErrorState } from "@/app/ui/states";

export default function ApprovalsError({ error, reset }: { error: Error; reset: () => void }) {
  return (
    <div className="space-y-3">
      <h1 className="text-2xl font-semibold">Approvals</h1>
      <ErrorState title="Could not load the approval inbox" error={error} />
      <Button variant="secondary" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
