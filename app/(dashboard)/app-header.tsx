"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/app/auth-client";
import { LiveIndicator } from "@/app/live/live-indicator";
import { Button } from "@/app/ui/button";
import { useViewer } from "./viewer";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/sessions", label: "Sessions" },
  { href: "/approvals", label: "Approvals" },
  { href: "/analytics", label: "Analytics" },
  { href: "/activity", label: "Activity" },
] as const;

export function AppHeader() {
  const viewer = useViewer();
  const pathname = usePathname();
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);
  // Everyone has an account page (their personal API tokens); only admins have Settings.
  const links = [
    ...LINKS,
    ...(viewer.role === "admin" ? [{ href: "/settings", label: "Settings" } as const] : []),
    { href: "/account", label: "Account" } as const,
  ];

  async function signOut() {
    setSigningOut(true);
    await authClient.signOut();
    router.replace("/sign-in");
  }

  return (
    <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/" prefetch={false} className="font-semibold tracking-tight">
          Proofgate
        </Link>
        <nav aria-label="Main" className="order-last -mx-2 flex w-full gap-1 overflow-x-auto sm:order-none sm:w-auto">
          {links.map((link) => {
            const current = link.href === "/" ? pathname === "/" : pathname.startsWith(link.href);
            return (
              <Link
                key={link.href}
                href={link.href}
                // Pages hold live data: fetch on navigation, not ahead of it.
                prefetch={false}
                aria-current={current ? "page" : undefined}
                className={`rounded-md px-2 py-1 text-sm whitespace-nowrap ${current ? "bg-zinc-100 font-medium dark:bg-zinc-800" : "text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"}`}
              >
                {link.label}
              </Link>
            );
          })}
        </nav>
        <div className="ml-auto flex items-center gap-3">
          <LiveIndicator />
          <span className="hidden text-sm text-zinc-600 md:inline dark:text-zinc-400" data-testid="signed-in-as">
            {viewer.label} · {viewer.role}
          </span>
          <Button variant="ghost" onClick={signOut} disabled={signingOut}>
            Sign out
          </Button>
        </div>
      </div>
    </header>
  );
}
