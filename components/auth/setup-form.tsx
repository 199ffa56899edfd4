"use client";
// The first admin account. On a laptop in local mode the operator needs nothing more; elsewhere the
// one-time setup token the server printed at start proves the person runs the server.
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { formErrors } from "@/components/ui/errors";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { ErrorNotice } from "@/components/ui/notice";
import { EmailField, NameField, NewPasswordFields, useNewPassword } from "./account-fields";
import { reloadAt } from "./auth-card";

export function SetupForm({ needsToken }: { needsToken: boolean }) {
  const id = useId();
  const trpc = useTRPC();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [token, setToken] = useState("");
  const newPassword = useNewPassword();
  const setup = useMutation(trpc.auth.setup.mutationOptions({ onSuccess: () => reloadAt("/playbooks") }));
  const { fields, unshown } = formErrors(setup.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!newPassword.check()) return;
    setup.mutate({ email, name, password: newPassword.password, ...(needsToken ? { setupToken: token } : {}) });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      {needsToken ? (
        <Field
          id={`${id}-token`}
          label="Setup token"
          hint="The server printed it to its log when it started (a restart prints a new one)."
          error={fields.setupToken}
        >
          <Input
            {...fieldAria(`${id}-token`, fields.setupToken, true)}
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            required
            value={token}
            onChange={(event) => setToken(event.target.value)}
          />
        </Field>
      ) : null}
      <EmailField id={id} value={email} onChange={setEmail} error={fields.email} />
      <NameField id={id} value={name} onChange={setName} error={fields.name} />
      <NewPasswordFields id={id} {...newPassword.fields} error={fields.password} />
      <ErrorNotice error={newPassword.problem ?? unshown} />
      <Button type="submit" variant="primary" disabled={setup.isPending || setup.isSuccess}>
        {setup.isPending || setup.isSuccess ? "Creating the admin…" : "Create the admin account"}
      </Button>
    </form>
  );
}
