"use client";
// An invite (or a new link from an admin): the person sets their name and password and is signed in.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { errorMessage, fieldErrors } from "@/components/ui/errors";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { Skeleton } from "@/components/ui/skeleton";
import { NewPasswordFields, passwordProblem } from "./new-password-fields";
import { reloadAt } from "./auth-card";

export function AcceptInviteForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const info = useQuery({ ...trpc.auth.inviteInfo.queryOptions({ token }), retry: false });
  if (info.isPending) {
    return (
      <div role="status" className="flex flex-col gap-3">
        <span className="sr-only">Checking the link…</span>
        <Skeleton className="h-9" />
        <Skeleton className="h-9" />
      </div>
    );
  }
  if (info.isError) return <Notice tone="danger">{errorMessage(info.error)}</Notice>;
  return <InviteFields token={token} email={info.data.email} initialName={info.data.name} reset={info.data.reset} />;
}

function InviteFields({ token, email, initialName, reset }: { token: string; email: string; initialName: string; reset: boolean }) {
  const id = useId();
  const trpc = useTRPC();
  const [name, setName] = useState(initialName);
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const accept = useMutation(trpc.auth.acceptInvite.mutationOptions({ onSuccess: () => reloadAt("/playbooks") }));
  const fields = accept.error ? fieldErrors(accept.error) : {};

  function submit(event: FormEvent) {
    event.preventDefault();
    const local = passwordProblem(password, confirm);
    setProblem(local);
    if (!local) accept.mutate({ token, name, password });
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
      <Field id={`${id}-name`} label="Name" optional error={fields.name}>
        <Input
          {...fieldAria(`${id}-name`, fields.name)}
          autoComplete="name"
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </Field>
      <NewPasswordFields
        id={id}
        password={password}
        confirm={confirm}
        onPassword={setPassword}
        onConfirm={setConfirm}
        error={fields.password}
        label={reset ? "New password" : "Password"}
      />
      {problem || (accept.error && Object.keys(fields).length === 0) ? (
        <Notice tone="danger" compact>
          {problem ?? errorMessage(accept.error)}
        </Notice>
      ) : null}
      <Button type="submit" variant="primary" disabled={accept.isPending || accept.isSuccess}>
        {accept.isPending || accept.isSuccess ? "Saving…" : reset ? "Set the new password" : "Create my account"}
      </Button>
    </form>
  );
}
