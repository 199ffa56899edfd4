"use client";
// Email and password. A wrong pair, a locked account or a disabled one each get their own message
// from the server; after signing in the page reloads at the address the person came from.
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { errorMessage, fieldErrors } from "@/components/ui/errors";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { reloadAt, safeNext } from "./auth-card";

export function SignInForm({ next }: { next: string | null }) {
  const id = useId();
  const trpc = useTRPC();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      // A full load: every server component renders again as the signed-in person.
      onSuccess: () => reloadAt(safeNext(next)),
    }),
  );
  const fields = signIn.error ? fieldErrors(signIn.error) : {};

  function submit(event: FormEvent) {
    event.preventDefault();
    signIn.mutate({ email, password });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <Field id={`${id}-email`} label="Email" error={fields.email}>
        <Input
          {...fieldAria(`${id}-email`, fields.email)}
          type="email"
          autoComplete="username"
          required
          autoFocus
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </Field>
      <Field id={`${id}-password`} label="Password" error={fields.password}>
        <Input
          {...fieldAria(`${id}-password`, fields.password)}
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
      </Field>
      {signIn.error && Object.keys(fields).length === 0 ? (
        <Notice tone="danger" compact>
          {errorMessage(signIn.error)}
        </Notice>
      ) : null}
      <Button type="submit" variant="primary" disabled={signIn.isPending || signIn.isSuccess}>
        {signIn.isPending || signIn.isSuccess ? "Signing in…" : "Sign in"}
      </Button>
      <p className="text-xs text-ink-faint">Forgot your password? An admin can send you a new link to set one.</p>
    </form>
  );
}
