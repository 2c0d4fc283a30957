import { createElement, isValidElement, type ReactElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { QueryFallback } from "./query-fallback";

const skeleton = createElement("div", { "data-skeleton": "" }, "Loading tasks…");
// QueryFallback uses no hooks, so it can be called as a function and its result rendered.
const render = (query: { isError: boolean; error: unknown; refetch: () => unknown }) =>
  renderToStaticMarkup(QueryFallback({ query, errorTitle: "Could not load the tasks", children: skeleton }));

/** The first element in a tree of React elements (not rendered) that `match` accepts. */
function find(node: ReactNode, match: (element: ReactElement<Record<string, unknown>>) => boolean): ReactElement<Record<string, unknown>> | null {
  if (Array.isArray(node)) {
    for (const child of node) {
      const hit = find(child as ReactNode, match);
      if (hit) return hit;
    }
    return null;
  }
  if (!isValidElement<Record<string, unknown>>(node)) return null;
  if (match(node)) return node;
  return find(node.props.children as ReactNode, match);
}

describe("QueryFallback", () => {
  it("shows the skeleton while the query loads", () => {
    const html = render({ isError: false, error: null, refetch: () => undefined });
    expect(html).toBe('<div data-skeleton="">Loading tasks…</div>');
  });

  it("shows a failed load as a failure, with its title and the error's message, never as the skeleton or empty data", () => {
    const html = render({ isError: true, error: new Error("database is locked"), refetch: () => undefined });
    expect(html).toContain('role="alert"');
    expect(html).toContain("Could not load the tasks");
    expect(html).toContain("database is locked");
    expect(html).toContain("Try again");
    expect(html).not.toContain("data-skeleton");
  });

  it("asks the query again when Try again is pressed", () => {
    const refetch = vi.fn();
    const tree = QueryFallback({
      query: { isError: true, error: new Error("database is locked"), refetch },
      errorTitle: "Could not load the tasks",
      children: skeleton,
    });
    const button = find(tree, (element) => typeof element.props.onClick === "function");
    expect(button).not.toBeNull();
    (button!.props.onClick as () => void)();
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it("waits for several queries: the skeleton while none failed, else the first failure, and Try again asks again each one that failed", () => {
    type Query = { isError: boolean; error: unknown; refetch: () => unknown };
    const loading = { isError: false, error: null, refetch: vi.fn() };
    const locked = { isError: true, error: new Error("database is locked"), refetch: vi.fn() };
    const gone = { isError: true, error: new Error("session gone"), refetch: vi.fn() };
    const html = (query: Query[]) => renderToStaticMarkup(QueryFallback({ query, errorTitle: "Could not load the inbox", children: skeleton }));
    expect(html([loading, loading])).toBe('<div data-skeleton="">Loading tasks…</div>');
    expect(html([loading, locked, gone])).toContain("database is locked");
    expect(html([loading, locked, gone])).not.toContain("session gone");
    const tree = QueryFallback({ query: [loading, locked, gone], errorTitle: "Could not load the inbox", children: skeleton });
    (find(tree, (element) => typeof element.props.onClick === "function")!.props.onClick as () => void)();
    expect(loading.refetch).not.toHaveBeenCalled();
    expect(locked.refetch).toHaveBeenCalledTimes(1);
    expect(gone.refetch).toHaveBeenCalledTimes(1);
  });
});
