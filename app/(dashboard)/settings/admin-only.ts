import { getViewer } from "@/app/trpc/server";

/**
 * The layout shows non-admins a message instead of the page; pages check too, so they do not
 * start queries the API would refuse.
 */
export async function viewerIsAdmin(): Promise<boolean> {
  return (await getViewer())?.role === "admin";
}
