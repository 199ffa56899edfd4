"use client";
// The fields of the account forms (sign-in, first admin, invite, change password, inviting someone):
// the email, the name, and a new password typed twice with the length rule said up front.
import { useState } from "react";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { PASSWORD_MIN_LENGTH } from "@/server/auth/schemas";

interface TextFieldProps {
  /** The form's useId(); the field's id derives from it. */
  id: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  autoFocus?: boolean;
}

/** `username` lets password managers file the password under the email; someone else's email is `off`. */
export function EmailField({
  id,
  value,
  onChange,
  error,
  autoFocus,
  autoComplete = "username",
}: TextFieldProps & { autoComplete?: string }) {
  return (
    <Field id={`${id}-email`} label="Email" error={error}>
      <Input
        {...fieldAria(`${id}-email`, error)}
        type="email"
        autoComplete={autoComplete}
        required
        autoFocus={autoFocus}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </Field>
  );
}

export function NameField({ id, value, onChange, error, autoComplete = "name" }: TextFieldProps & { autoComplete?: string }) {
  return (
    <Field id={`${id}-name`} label="Name" optional error={error}>
      <Input
        {...fieldAria(`${id}-name`, error)}
        autoComplete={autoComplete}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </Field>
  );
}

/** A new password typed twice: what the fields show, and the check made before the form is sent. */
export function useNewPassword() {
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  return {
    password,
    /** Why the form was not sent, from the last check; null once it passes. */
    problem,
    fields: { password, confirm, onPassword: setPassword, onConfirm: setConfirm },
    /** Checks the two entries in the browser (the server checks again); false when the form must not be sent. */
    check(): boolean {
      const found = passwordProblem(password, confirm);
      setProblem(found);
      return found === null;
    },
    clear() {
      setPassword("");
      setConfirm("");
    },
  };
}

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
  const hint = `At least ${PASSWORD_MIN_LENGTH} characters, and not a common password. A passphrase of a few words is easy to remember.`;
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
function passwordProblem(password: string, confirm: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password !== confirm) return "The two passwords differ.";
  return null;
}
