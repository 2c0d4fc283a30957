"use client";

import { QueryErrorResetBoundary } from "@tanstack/react-query";
import { Component, type ReactNode, Suspense } from "react";
import { Button } from "@/app/ui/button";
import { ErrorState } from "@/app/ui/states";

class Boundary extends Component<{ title: string; onReset: () => void; children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="space-y-2">
        <ErrorState title={this.props.title} error={this.state.error} />
        <Button
          variant="secondary"
          onClick={() => {
            this.props.onReset();
            this.setState({ error: null });
          }}
        >
          Try again
        </Button>
      </div>
    );
  }
}

/** A suspending list: a skeleton while it loads, the error (with a retry) if it fails — never an empty table. */
export function QueryBoundary({ title, children }: { title: string; children: ReactNode }) {
  return (
    <QueryErrorResetBoundary>
      {({ reset }) => (
        <Boundary title={title} onReset={reset}>
          <Suspense fallback={<TableSkeleton />}>{children}</Suspense>
        </Boundary>
      )}
    </QueryErrorResetBoundary>
  );
}

function TableSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading" className="space-y-2">
      {[0, 1, 2].map((row) => (
        <div key={row} className="h-8 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
      ))}
    </div>
  );
}
