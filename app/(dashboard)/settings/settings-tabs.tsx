"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export const SETTINGS_TABS = [
  { href: "/settings", label: "Users" },
  { href: "/settings/tokens", label: "API tokens" },
  { href: "/settings/webhooks", label: "Webhooks" },
  { href: "/settings/roles", label: "Roles" },
  { href: "/settings/configuration", label: "Configuration" },
] as const;

/** The sections are addresses, so a section can be linked to and survives a reload. */
export function SettingsTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Settings sections" className="mb-6 flex gap-1 overflow-x-auto border-b border-zinc-200 dark:border-zinc-800">
      {SETTINGS_TABS.map((tab) => {
        const current = pathname === tab.href;
        return (
          <Link
            key={tab.href}
            href={tab.href}
            prefetch={false}
            aria-current={current ? "page" : undefined}
            className={`-mb-px border-b-2 px-3 py-2 text-sm whitespace-nowrap focus-visible:outline-2 focus-visible:outline-sky-600 ${current ? "border-zinc-900 font-medium dark:border-zinc-100" : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"}`}
          >
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
