import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getNeedsSetup, getViewer } from "@/app/trpc/server";
import { safeNext } from "./safe-next";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in · Proofgate" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  if (await getNeedsSetup()) redirect("/setup");
  const { next } = await searchParams;
  if (await getViewer()) redirect(safeNext(next));
  return (
    <>
      <h1 className="mb-4 text-xl font-semibold">Sign in</h1>
      <SignInForm next={safeNext(next)} />
    </>
  );
}
