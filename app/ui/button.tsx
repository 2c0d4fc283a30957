"use client";

import type { ButtonHTMLAttributes } from "react";
import { useHydrated } from "./use-hydrated";

const VARIANTS = {
  primary: "bg-zinc-900 text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300",
  secondary: "border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800",
  danger: "bg-rose-700 text-white hover:bg-rose-600 dark:bg-rose-600 dark:hover:bg-rose-500",
  ghost: "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
} as const;

export type ButtonVariant = keyof typeof VARIANTS;

/**
 * The one button: visible focus ring, disabled look, sizes that stay tappable on a phone. A submit
 * button stays disabled until the page has hydrated, so neither it nor Enter in a field can submit
 * its form natively (as a GET carrying the fields, a password included, in the address).
 */
export function Button({
  variant = "primary",
  className = "",
  type = "button",
  disabled,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant }) {
  const hydrated = useHydrated();
  return (
    <button
      type={type}
      disabled={disabled || (type === "submit" && !hydrated)}
      className={`inline-flex min-h-9 items-center justify-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:cursor-not-allowed disabled:opacity-50 ${VARIANTS[variant]} ${className}`}
      {...props}
    />
  );
}
