import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "./trpc/client";
import "./globals.css";

export const metadata: Metadata = {
  title: "Proofgate",
  description: "What your AI agents really finished: claims, verification and completion gates.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
