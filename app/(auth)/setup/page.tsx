import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/auth-card";
import { SetupForm } from "@/components/auth/setup-form";
import { getSession } from "@/server/trpc/rsc";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Create the first admin" };

export default async function SetupPage() {
  const session = await getSession();
  if (session.usersExist) redirect(session.gate === "open" ? "/playbooks" : "/sign-in");
  return (
    <AuthCard
      title="Create the first admin"
      description={
        session.setupNeedsToken
          ? "This studio requires sign-in and has no account yet. The person who runs the server creates the first admin with the setup token it printed to its log."
          : "Your own account, with which you will sign in from now on. Once it exists this studio requires sign-in; then invite the others from Users."
      }
    >
      <SetupForm needsToken={session.setupNeedsToken} />
    </AuthCard>
  );
}
