import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard, safeNext } from "@/components/auth/auth-card";
import { SignInForm } from "@/components/auth/sign-in-form";
import { getSession } from "@/server/trpc/rsc";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = (await searchParams).next;
  const next = typeof raw === "string" ? raw : null;
  const session = await getSession();
  if (session.gate === "open") redirect(safeNext(next));
  if (session.gate === "first-admin") redirect("/setup");
  return (
    <AuthCard title="Sign in to ACE Studio">
      <SignInForm next={next} />
    </AuthCard>
  );
}
