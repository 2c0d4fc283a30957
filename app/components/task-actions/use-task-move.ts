"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/trpc/client";
import type { HumanMove } from "./types";

/**
 * The mutation behind one move. Nothing changes on screen until the server said yes: on success
 * every cached query is refetched (the live stream would do the same a moment later), so what the
 * board shows is the ledger, never a guess.
 */
export function useTaskMove(move: HumanMove) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const procedure = {
    verify: trpc.task.verify,
    block: trpc.task.block,
    complete: trpc.task.complete,
    approve_reset: trpc.task.approveReset,
    decline_reset: trpc.task.declineReset,
  }[move];
  return useMutation(procedure.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
}

/** The server's refusal as the person should read it: the domain's own message, naming the rule. */
export function refusalMessage(error: { message: string; data?: { code?: string } | null } | null): string | null {
  if (!error) return null;
  if (error.data?.code === "CONFLICT") return `Someone else moved this task first — ${error.message}`;
  return error.message;
}
