import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getNeedsSetup } from "@/app/trpc/server";
import { SetupForm } from "./setup-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Set up · Proofgate" };

/** First run only: once anyone exists, this page sends visitors to sign in. */
export default async function SetupPage() {
  if (!(await getNeedsSetup())) redirect("/sign-in");
  return (
    <>
      <h1 className="mb-1 text-xl font-semibold">Create the admin account</h1>
      <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">
        This Proofgate has no users yet. The first account is its admin; it can then add leads and viewers and create API tokens for agents.
      </p>
      <SetupForm />
    </>
  );
}
