// Every page of the studio needs a session, or the local operator (see server/auth/mode.ts); the
// procedures check each call again, this only sends people to the page they need first.
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { currentPath, getSession } from "@/server/trpc/rsc";

export default async function StudioLayout({ children }: { children: ReactNode }) {
  const session = await getSession();
  if (session.gate === "first-admin") redirect("/setup");
  if (session.gate === "sign-in") redirect(`/sign-in?next=${encodeURIComponent(await currentPath())}`);
  return children;
}
