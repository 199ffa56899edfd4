"use client";
// The new-experiment form's building blocks: a titled section and its labelled text, text-area and
// playbook fields, each showing its problem under it.
import { useId, type ReactNode } from "react";
import { Field, fieldAria, Input, Textarea } from "@/components/ui/input";
import { Select } from "@/components/ui/select";

export type PlaybookChoice = { id: string; name: string; version: number };

export function FormSection({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="rounded-card border border-line bg-surface shadow-card">
      <header className="border-b border-line px-4 py-3 sm:px-5">
        <h2 id={id} className="text-sm font-semibold text-ink">
          {title}
        </h2>
        {description ? <p className="mt-0.5 text-xs text-ink-muted">{description}</p> : null}
      </header>
      <div className="flex flex-col gap-4 px-4 py-4 sm:px-5">{children}</div>
    </section>
  );
}

export function TextField({
  label,
  value,
  onChange,
  error,
  hint,
  placeholder,
  optional,
  mono,
  inputMode,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  placeholder?: string;
  optional?: boolean;
  mono?: boolean;
  inputMode?: "decimal" | "numeric";
}) {
  const id = useId();
  return (
    <Field id={id} label={label} hint={hint} error={error} optional={optional}>
      <Input
        {...fieldAria(id, error, Boolean(hint))}
        value={value}
        placeholder={placeholder}
        inputMode={inputMode}
        autoComplete="off"
        spellCheck={mono ? false : undefined}
        className={mono ? "font-mono text-[13px]" : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
    </Field>
  );
}

export function TextAreaField({
  label,
  value,
  onChange,
  error,
  placeholder,
  optional,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  placeholder?: string;
  optional?: boolean;
}) {
  const id = useId();
  return (
    <Field id={id} label={label} error={error} optional={optional}>
      <Textarea
        {...fieldAria(id, error)}
        rows={3}
        value={value}
        placeholder={placeholder}
        onChange={(event) => onChange(event.target.value)}
      />
    </Field>
  );
}

export function PlaybookField({
  playbooks,
  value,
  onChange,
  error,
}: {
  playbooks: readonly PlaybookChoice[];
  value: string | null;
  onChange: (playbookId: string) => void;
  error?: string;
}) {
  const id = useId();
  return (
    <Field id={id} label="Playbook" error={error} hint="The playbook whose versions the variants serve, and whose agents are assigned.">
      <Select<string>
        id={id}
        placeholder="Choose a playbook"
        className="w-full sm:w-96"
        value={value ?? ""}
        onValueChange={onChange}
        options={playbooks.map((playbook) => ({
          value: playbook.id,
          label: playbook.name,
          hint: `v${playbook.version}`,
          textValue: playbook.name,
        }))}
      />
    </Field>
  );
}
