import type { Metadata } from "next";
import { AcceptInviteForm } from "@/components/auth/accept-invite-form";
import { AuthCard } from "@/components/auth/auth-card";

export const dynamic = "force-dynamic";

// The token is in the path: keep it out of other sites' logs (the app's Referrer-Policy is same-origin too).
export const metadata: Metadata = { title: "Set your password", referrer: "no-referrer" };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <AuthCard title="Welcome to ACE Studio">
      <AcceptInviteForm token={token} />
    </AuthCard>
  );
}
