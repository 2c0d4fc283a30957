import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { getViewer } from "@/app/trpc/server";
import { SettingsTabs } from "./settings-tabs";

export const metadata: Metadata = { title: "Settings · Proofgate" };

/** Admins only. Anyone else who opens a settings address is told so, rather than shown a failure. */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const viewer = await getViewer();
  const isAdmin = viewer?.role === "admin";
  return (
    <div>
      <header className="mb-4">
        <h1 className="text-2xl font-semibold">Settings</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Who may sign in, the API tokens agents use, where notifications go, and the server&apos;s configuration.
        </p>
      </header>
      {isAdmin ? (
        <>
          <SettingsTabs />
          {children}
        </>
      ) : (
        <section
          aria-labelledby="only-admins"
          className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          <h2 id="only-admins" className="font-medium">
            Only admins can open Settings.
          </h2>
          <p className="mt-1">
            You are signed in as {viewer?.label ?? "someone"} with the role {viewer?.role ?? "none"}. Ask an admin if you need an account created, a role
            changed or an agent&apos;s API token. Your own personal API tokens are on your{" "}
            <Link href="/account" prefetch={false} className="font-medium underline">
              Account
            </Link>{" "}
            page.
          </p>
        </section>
      )}
    </div>
  );
}
