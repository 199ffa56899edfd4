"use client";
// An invite (or a new link from an admin): the person sets their name and password and is signed in.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { errorMessage, formErrors } from "@/components/ui/errors";
import { ErrorNotice, Notice } from "@/components/ui/notice";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { NameField, NewPasswordFields, useNewPassword } from "./account-fields";
import { reloadAt } from "./auth-card";

export function AcceptInviteForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const info = useQuery({ ...trpc.auth.inviteInfo.queryOptions({ token }), retry: false });
  if (info.isPending) {
    return (
      <LoadingStatus label="Checking the link…" className="flex flex-col gap-3">
        <Skeleton className="h-9" />
        <Skeleton className="h-9" />
      </LoadingStatus>
    );
  }
  if (info.isError) return <Notice tone="danger">{errorMessage(info.error)}</Notice>;
  return <InviteFields token={token} email={info.data.email} initialName={info.data.name} reset={info.data.reset} />;
}

function InviteFields({ token, email, initialName, reset }: { token: string; email: string; initialName: string; reset: boolean }) {
  const id = useId();
  const trpc = useTRPC();
  const [name, setName] = useState(initialName);
  const newPassword = useNewPassword();
  const accept = useMutation(trpc.auth.acceptInvite.mutationOptions({ onSuccess: () => reloadAt("/playbooks") }));
  const { fields, unshown } = formErrors(accept.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (newPassword.check()) accept.mutate({ token, name, password: newPassword.password });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <p className="text-sm text-ink-muted">
        {reset ? "Set a new password for " : "Your account: "}
        <span className="font-medium text-ink">{email}</span>
        {reset ? ". Your other sessions end when you do." : null}
      </p>
      {/* The email as a (hidden) username, so password managers file the new password under it. */}
      <input type="email" autoComplete="username" value={email} readOnly hidden />
      <NameField id={id} value={name} onChange={setName} error={fields.name} />
      <NewPasswordFields id={id} {...newPassword.fields} error={fields.password} label={reset ? "New password" : "Password"} />
      <ErrorNotice error={newPassword.problem ?? unshown} />
      <Button type="submit" variant="primary" disabled={accept.isPending || accept.isSuccess}>
        {accept.isPending || accept.isSuccess ? "Saving…" : reset ? "Set the new password" : "Create my account"}
      </Button>
    </form>
  );
}
