"use client";

import { QueryErrorResetBoundary } from "@tanstack/react-query";
import { Component, type ReactNode, Suspense } from "react";
import { Button } from "@/app/ui/button";
import { ErrorState } from "@/app/ui/states";

/**
 * Suspense for a suspending query, and an error boundary that shows a failed load as a failure
 * (never as empty data) with a retry. `resetKey`: when it changes (another view), a shown error is
 * dropped and the children render again.
 */
export function QueryBoundary({ fallback, errorTitle, resetKey, children }: { fallback: ReactNode; errorTitle: string; resetKey?: string; children: ReactNode }) {
  return (
    <QueryErrorResetBoundary>
      {({ reset }) => (
        <Catch title={errorTitle} onRetry={reset} resetKey={resetKey}>
          <Suspense fallback={fallback}>{children}</Suspense>
        </Catch>
      )}
    </QueryErrorResetBoundary>
  );
}

interface CatchProps {
  title: string;
  onRetry: () => void;
  resetKey?: string;
  children: ReactNode;
}

class Catch extends Component<CatchProps, { error: unknown; key?: string }> {
  override state: { error: unknown; key?: string } = { error: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: CatchProps, state: { error: unknown; key?: string }) {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="space-y-2">
        <ErrorState title={this.props.title} error={this.state.error} />
        <Button
          variant="secondary"
          onClick={() => {
            this.props.onRetry();
            this.setState({ error: null });
          }}
        >
          Try again
        </Button>
      </div>
    );
  }
}
