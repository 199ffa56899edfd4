"use client";
// The first admin account. On a laptop in local mode the operator needs nothing more; elsewhere the
// one-time setup token the server printed at start proves the person runs the server.
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { errorMessage, fieldErrors } from "@/components/ui/errors";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { NewPasswordFields, passwordProblem } from "./new-password-fields";
import { reloadAt } from "./auth-card";

export function SetupForm({ needsToken }: { needsToken: boolean }) {
  const id = useId();
  const trpc = useTRPC();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const setup = useMutation(trpc.auth.setup.mutationOptions({ onSuccess: () => reloadAt("/playbooks") }));
  const fields = setup.error ? fieldErrors(setup.error) : {};

  function submit(event: FormEvent) {
    event.preventDefault();
    const local = passwordProblem(password, confirm);
    setProblem(local);
    if (local) return;
    setup.mutate({ email, name, password, ...(needsToken ? { setupToken: token } : {}) });
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
      <Field id={`${id}-email`} label="Email" error={fields.email}>
        <Input
          {...fieldAria(`${id}-email`, fields.email)}
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </Field>
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
      />
      {problem || (setup.error && Object.keys(fields).length === 0) ? (
        <Notice tone="danger" compact>
          {problem ?? errorMessage(setup.error)}
        </Notice>
      ) : null}
      <Button type="submit" variant="primary" disabled={setup.isPending || setup.isSuccess}>
        {setup.isPending || setup.isSuccess ? "Creating the admin…" : "Create the admin account"}
      </Button>
    </form>
  );
}
