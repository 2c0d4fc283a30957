import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "./trpc/client";
import "./globals.css";

export const metadata: Metadata = {
  title: "Proofgate",
  description: "What your AI agents really finished: claims, verification and completion gates.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request, none prerendered at build time (the 404 would be): Next puts
  // the nonce of this response's Content-Security-Policy (server/serve/security-headers.ts) on its
  // scripts, and a page made once at build time would carry none, so the browser would run none.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
