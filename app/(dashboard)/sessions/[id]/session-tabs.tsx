"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { sessionHref } from "./session-id";

const TABS = [
  { segment: "", label: "Overview" },
  { segment: "/goals", label: "Goals" },
  { segment: "/logs", label: "Logs" },
  { segment: "/tokens", label: "Tokens" },
] as const;

/** The session's views. Each holds live data, so none is fetched before it is opened. */
export function SessionTabs({ sessionId }: { sessionId: string }) {
  const pathname = usePathname();
  const base = sessionHref(sessionId);
  return (
    <nav aria-label="Session views" className="-mx-1 flex gap-1 overflow-x-auto border-b border-zinc-200 px-1 dark:border-zinc-800">
      {TABS.map((tab) => {
        const href = base + tab.segment;
        const here = decodeURIComponent(pathname);
        const target = decodeURIComponent(href);
        const current = tab.segment === "" ? here === target : here.startsWith(target);
        return (
          <Link
            key={tab.label}
            href={href}
            prefetch={false}
            aria-current={current ? "page" : undefined}
            className={`-mb-px border-b-2 px-3 py-2 text-sm whitespace-nowrap ${current ? "border-zinc-900 font-medium dark:border-zinc-100" : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"}`}
          >
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
