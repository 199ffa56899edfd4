"use client";
// One variant of the new-experiment form: its key, name, weight and what it serves.
import { Trash2 } from "lucide-react";
import { useId } from "react";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
import type { VariantDraft } from "./draft";
import { VariantTargetPicker } from "./variant-target-picker";

export function VariantRow({
  index,
  variant,
  playbookId,
  currentVersion,
  problems,
  weightInvalid,
  weightsId,
  canRemove,
  onChange,
  onRemove,
}: {
  index: number;
  variant: VariantDraft;
  playbookId: string | null;
  currentVersion: number | null;
  problems: { key?: string; target?: string };
  weightInvalid: boolean;
  weightsId: string;
  canRemove: boolean;
  onChange: (next: Partial<VariantDraft>) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const label = `Variant ${index + 1}`;
  return (
    <li aria-label={label} className="rounded-lg border border-line bg-subtle/40 p-3">
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex w-24 flex-col gap-1.5">
          <Label htmlFor={`${id}-key`}>Key</Label>
          <Input
            id={`${id}-key`}
            aria-label={`${label} key`}
            aria-invalid={problems.key ? true : undefined}
            className="font-mono text-[13px]"
            value={variant.key}
            autoComplete="off"
            onChange={(event) => onChange({ key: event.target.value })}
          />
        </div>
        <div className="flex min-w-40 flex-1 flex-col gap-1.5">
          <Label htmlFor={`${id}-name`}>
            Name <span className="font-normal text-ink-faint">(optional)</span>
          </Label>
          <Input
            id={`${id}-name`}
            aria-label={`${label} name`}
            value={variant.name}
            placeholder={index === 0 ? "Control" : "e.g. Curated"}
            onChange={(event) => onChange({ name: event.target.value })}
          />
        </div>
        <div className="flex w-28 flex-col gap-1.5">
          <Label htmlFor={`${id}-weight`}>Weight (%)</Label>
          <Input
            id={`${id}-weight`}
            aria-label={`${label} weight (%)`}
            aria-invalid={weightInvalid || undefined}
            aria-describedby={weightsId}
            inputMode="decimal"
            className="tabular-nums"
            value={variant.weight}
            onChange={(event) => onChange({ weight: event.target.value })}
          />
        </div>
        {index === 0 ? <span className="mb-2 text-xs font-medium text-ink-faint">Control</span> : null}
        <Button
          size="icon"
          variant="ghost"
          className="mb-0.5 ml-auto"
          aria-label={`Remove ${label}`}
          disabled={!canRemove}
          onClick={onRemove}
        >
          <Trash2 aria-hidden />
        </Button>
      </div>
      <div className="mt-3">
        <VariantTargetPicker
          playbookId={playbookId}
          currentVersion={currentVersion}
          target={variant.target}
          onChange={(target) => onChange({ target })}
          label={label}
          invalid={Boolean(problems.target)}
        />
      </div>
      {problems.key || problems.target ? (
        <p className="mt-2 text-xs font-medium text-danger">{[problems.key, problems.target].filter(Boolean).join(" ")}</p>
      ) : null}
    </li>
  );
}
