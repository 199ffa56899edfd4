"use client";
// Email and password. A wrong pair, a locked account or a disabled one each get their own message
// from the server; after signing in the page reloads at the address the person came from.
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { formErrors } from "@/components/ui/errors";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { ErrorNotice } from "@/components/ui/notice";
import { EmailField } from "./account-fields";
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
  const { fields, unshown } = formErrors(signIn.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    signIn.mutate({ email, password });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <EmailField id={id} value={email} onChange={setEmail} error={fields.email} autoFocus />
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
      <ErrorNotice error={unshown} />
      <Button type="submit" variant="primary" disabled={signIn.isPending || signIn.isSuccess}>
        {signIn.isPending || signIn.isSuccess ? "Signing in…" : "Sign in"}
      </Button>
      <p className="text-xs text-ink-faint">Forgot your password? An admin can send you a new link to set one.</p>
    </form>
  );
}
