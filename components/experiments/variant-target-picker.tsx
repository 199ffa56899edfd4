"use client";
// What a variant serves: the playbook pinned at a version (with a version picker), the latest
// version at assignment, no playbook (the paper's baseline), or another playbook.
import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { Input } from "@/components/ui/input";
import { Select, type SelectOption } from "@/components/ui/select";
import { useTRPC } from "@/components/trpc/client";
import type { TargetDraft } from "./draft";
import { versionChoicesInput } from "./experiment-url";

type TargetKind = TargetDraft["kind"];

const KIND_OPTIONS: SelectOption<TargetKind>[] = [
  { value: "version", label: "Pinned version" },
  { value: "latest", label: "Latest version" },
  { value: "noPlaybook", label: "No playbook" },
  { value: "playbook", label: "Another playbook" },
];

export function VariantTargetPicker({
  playbookId,
  currentVersion,
  target,
  onChange,
  label,
  invalid,
}: {
  playbookId: string | null;
  currentVersion: number | null;
  target: TargetDraft;
  onChange: (target: TargetDraft) => void;
  /** "Variant A": prefixes the controls' accessible names. */
  label: string;
  invalid?: boolean;
}) {
  function changeKind(kind: TargetKind) {
    if (kind === target.kind) return;
    if (kind === "version") onChange({ kind, version: currentVersion });
    else if (kind === "playbook") onChange({ kind, playbookName: null });
    else onChange({ kind });
  }
  return (
    <div className="flex min-w-0 flex-col gap-2 sm:flex-row">
      <Select<TargetKind>
        label={`${label} serves`}
        className="w-full sm:w-44"
        value={target.kind}
        onValueChange={changeKind}
        options={KIND_OPTIONS}
      />
      {target.kind === "version" ? (
        <VersionPicker
          playbookId={playbookId}
          currentVersion={currentVersion}
          value={target.version}
          onChange={(version) => onChange({ kind: "version", version })}
          label={`${label} version`}
          invalid={invalid}
        />
      ) : target.kind === "playbook" ? (
        <OtherPlaybookPicker
          exclude={playbookId}
          value={target.playbookName}
          onChange={(playbookName) => onChange({ kind: "playbook", playbookName })}
          label={`${label} playbook`}
        />
      ) : (
        <p className="self-center text-xs text-ink-faint">
          {target.kind === "latest"
            ? "The version current when the unit is assigned; results are split by the version served."
            : "An empty context: the agent without any playbook."}
        </p>
      )}
    </div>
  );
}

function VersionPicker({
  playbookId,
  currentVersion,
  value,
  onChange,
  label,
  invalid,
}: {
  playbookId: string | null;
  currentVersion: number | null;
  value: number | null;
  onChange: (version: number | null) => void;
  label: string;
  invalid?: boolean;
}) {
  const trpc = useTRPC();
  const id = useId();
  const versions = useQuery({
    ...trpc.history.versions.queryOptions(versionChoicesInput(playbookId ?? "")),
    enabled: playbookId !== null,
  });
  const items = versions.data?.items ?? [];
  const options: SelectOption<string>[] = items.map((version) => ({
    value: String(version.number),
    label: (
      <span className="flex min-w-0 flex-col">
        <span>
          Version {version.number}
          {version.number === versions.data?.currentVersion ? <span className="ml-1 text-ink-faint">(current)</span> : null}
        </span>
        <span className="max-w-72 truncate text-xs text-ink-faint">{version.reason || "—"}</span>
      </span>
    ),
    textValue: `Version ${version.number}`,
  }));
  const listed = value !== null && items.some((version) => version.number === value);
  if (value !== null && !listed) options.push({ value: String(value), label: `Version ${value}`, textValue: `Version ${value}` });
  const olderThanListed = (versions.data?.total ?? 0) > items.length;

  if (playbookId === null) return <p className="self-center text-xs text-ink-faint">Choose the playbook first.</p>;
  return (
    <div className="flex min-w-0 flex-1 flex-wrap items-center gap-2">
      <Select<string>
        label={label}
        placeholder={versions.isPending ? "Loading versions…" : "Choose a version"}
        className="w-full sm:w-56"
        value={value === null ? "" : String(value)}
        onValueChange={(chosen) => onChange(Number(chosen))}
        options={options}
        disabled={versions.isPending}
      />
      {olderThanListed ? (
        <span className="flex items-center gap-1.5 text-xs text-ink-faint">
          <label htmlFor={id}>or number</label>
          <Input
            id={id}
            type="number"
            inputMode="numeric"
            min={1}
            max={currentVersion ?? undefined}
            className="h-8 w-24"
            aria-invalid={invalid || undefined}
            value={value ?? ""}
            onChange={(event) => onChange(event.target.value === "" ? null : Math.max(1, Math.floor(Number(event.target.value))))}
          />
        </span>
      ) : null}
    </div>
  );
}

function OtherPlaybookPicker({
  exclude,
  value,
  onChange,
  label,
}: {
  exclude: string | null;
  value: string | null;
  onChange: (name: string) => void;
  label: string;
}) {
  const trpc = useTRPC();
  const playbooks = useQuery(trpc.playbook.list.queryOptions()).data ?? [];
  const options = playbooks
    .filter((playbook) => playbook.id !== exclude)
    .map((playbook) => ({ value: playbook.name, label: playbook.name, hint: `v${playbook.version}`, textValue: playbook.name }));
  return (
    <Select<string>
      label={label}
      placeholder={options.length === 0 ? "No other playbook" : "Choose a playbook"}
      className="w-full sm:w-64"
      value={value ?? ""}
      onValueChange={onChange}
      options={options}
      disabled={options.length === 0}
    />
  );
}
