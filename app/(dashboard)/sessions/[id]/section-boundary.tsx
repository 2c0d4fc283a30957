"use client";

import { useQueryErrorResetBoundary } from "@tanstack/react-query";
import { Component, type ReactNode } from "react";
import { Button } from "@/app/ui/button";
import { ErrorState } from "@/app/ui/states";

/** A section that failed to load says so (with the server's message) and can retry; the rest of the page stays. */
export function SectionBoundary({ title, children }: { title: string; children: ReactNode }) {
  const { reset } = useQueryErrorResetBoundary();
  return (
    <Boundary title={title} onReset={reset}>
      {children}
    </Boundary>
  );
}

class Boundary extends Component<{ title: string; onReset: () => void; children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="space-y-2">
        <ErrorState title={`Could not load the ${this.props.title.toLowerCase()}`} error={this.state.error} />
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
