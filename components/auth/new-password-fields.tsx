"use client";
// A new password typed twice, with the length rule said up front.
import { Field, fieldAria, Input } from "@/components/ui/input";
import { PASSWORD_MIN_LENGTH } from "@/server/auth/schemas";

export function NewPasswordFields({
  id,
  password,
  confirm,
  onPassword,
  onConfirm,
  error,
  label = "Password",
}: {
  id: string;
  password: string;
  confirm: string;
  onPassword: (value: string) => void;
  onConfirm: (value: string) => void;
  error?: string;
  label?: string;
}) {
  const mismatch = confirm.length > 0 && confirm !== password ? "The two passwords differ." : undefined;
  const hint = `At least ${PASSWORD_MIN_LENGTH} characters. A passphrase of a few words is easy to remember.`;
  return (
    <>
      <Field id={`${id}-password`} label={label} hint={hint} error={error}>
        <Input
          {...fieldAria(`${id}-password`, error, true)}
          type="password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_MIN_LENGTH}
          value={password}
          onChange={(event) => onPassword(event.target.value)}
        />
      </Field>
      <Field id={`${id}-confirm`} label={`${label}, again`} error={mismatch}>
        <Input
          {...fieldAria(`${id}-confirm`, mismatch)}
          type="password"
          autoComplete="new-password"
          required
          value={confirm}
          onChange={(event) => onConfirm(event.target.value)}
        />
      </Field>
    </>
  );
}

/** Why the form cannot be sent yet, checked in the browser before the server checks it again. */
export function passwordProblem(password: string, confirm: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password !== confirm) return "The two passwords differ.";
  return null;
}
