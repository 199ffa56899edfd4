"use client";
// /account: the signed-in person's password and sessions (each browser they are signed in on,
// which they can sign out from here). In local mode it says what that mode is.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button, SubmitButton, buttonClass } from "@/components/ui/button";
import { errorMessage, formErrors } from "@/components/ui/errors";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { ErrorNotice, Notice } from "@/components/ui/notice";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import { ROLE_DESCRIPTIONS, ROLE_LABELS } from "@/server/auth/schemas";
import { NewPasswordFields, useNewPassword } from "./account-fields";
import { useSession } from "./session-context";

export function AccountView() {
  const { identity } = useSession();
  return (
    <div className="flex max-w-3xl flex-col gap-6 pb-16 pt-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-ink">Account</h1>
        {identity.kind === "user" ? (
          <p className="mt-1 text-sm text-ink-muted">
            {identity.email} · <Badge tone={identity.role === "admin" ? "accent" : "neutral"}>{ROLE_LABELS[identity.role]}</Badge>{" "}
            {ROLE_DESCRIPTIONS[identity.role]}
          </p>
        ) : null}
      </div>
      {identity.kind === "user" ? (
        <>
          <Section title="Password">
            <ChangePasswordForm />
          </Section>
          <Section title="Where you are signed in">
            <SessionList />
          </Section>
        </>
      ) : (
        <Notice
          tone="info"
          title="Local mode"
          actions={
            <Link href="/setup" className={buttonClass("primary", "sm")}>
              Create an admin account
            </Link>
          }
        >
          This studio has no accounts and only this computer can reach it, so there is no sign-in: you act as its local admin, and changes
          are recorded as &ldquo;local user&rdquo;. Creating an admin account turns sign-in on; then invite the others from Users.
        </Notice>
      )}
    </div>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section aria-label={title} className="rounded-card border border-line bg-surface p-5 shadow-card">
      <h2 className="mb-4 text-base font-semibold tracking-tight text-ink">{title}</h2>
      {children}
    </section>
  );
}

function ChangePasswordForm() {
  const id = useId();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState("");
  const newPassword = useNewPassword();
  const change = useMutation(
    trpc.auth.changePassword.mutationOptions({
      onSuccess: async () => {
        toast.success("Password changed. Your other sessions were signed out.");
        setCurrent("");
        newPassword.clear();
        await queryClient.invalidateQueries({ queryKey: trpc.auth.sessions.queryKey() });
      },
    }),
  );
  const { fields, unshown } = formErrors(change.error);
  // A wrong current password comes as a sentence, not a field error: show it under its field.
  const currentError =
    fields.currentPassword ?? (change.error && /current password/i.test(change.error.message) ? change.error.message : undefined);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (newPassword.check()) change.mutate({ currentPassword: current, newPassword: newPassword.password });
  }

  return (
    <form onSubmit={submit} className="flex max-w-md flex-col gap-4" noValidate>
      <Field id={`${id}-current`} label="Current password" error={currentError}>
        <Input
          {...fieldAria(`${id}-current`, currentError)}
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(event) => setCurrent(event.target.value)}
        />
      </Field>
      <NewPasswordFields id={id} {...newPassword.fields} error={fields.newPassword} label="New password" />
      <ErrorNotice error={newPassword.problem ?? (currentError ? null : unshown)} />
      <div>
        <SubmitButton pending={change.isPending} pendingLabel="Changing…">
          Change password
        </SubmitButton>
      </div>
    </form>
  );
}

function SessionList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sessions = useQuery(trpc.auth.sessions.queryOptions());
  const end = useMutation(
    trpc.auth.endSession.mutationOptions({
      onSuccess: async () => {
        toast.success("Signed out there.");
        await queryClient.invalidateQueries({ queryKey: trpc.auth.sessions.queryKey() });
      },
      onError: (error) => toast.error(errorMessage(error)),
    }),
  );
  if (sessions.isPending) return <Skeleton className="h-24" />;
  if (sessions.isError) return <LoadFailed what="sessions" error={sessions.error} onRetry={() => void sessions.refetch()} />;
  return (
    <ul className="divide-y divide-line">
      {sessions.data.map((session) => (
        <li key={session.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2.5 text-sm">
          <div className="min-w-0 flex-1">
            <p className="truncate text-ink">{session.userAgent ?? "Unknown browser"}</p>
            <p className="text-xs text-ink-faint">
              {session.ip ?? "unknown address"} · signed in <RelativeTime date={session.createdAt} /> · last seen{" "}
              <RelativeTime date={session.lastSeenAt} />
            </p>
          </div>
          {session.current ? (
            <Badge tone="green">This browser</Badge>
          ) : (
            <Button size="sm" variant="ghost" disabled={end.isPending} onClick={() => end.mutate({ sessionId: session.id })}>
              Sign out there
            </Button>
          )}
        </li>
      ))}
    </ul>
  );
}
