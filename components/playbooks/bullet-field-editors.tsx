"use client";
// The bullet sheet's other edits, each one delta by the person: move to another section, archive
// (with a reason) or restore, and adjust the counters (with a reason).
import { Archive, ArchiveRestore, Minus, Plus, SlidersHorizontal } from "lucide-react";
import { useId, useState } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import { useCan } from "@/components/auth/session-context";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Field, fieldAria, Input, Textarea } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import type { BulletDetail, PlaybookDetail } from "@/server/playbooks/schemas";
import { CounterBadges } from "@/components/ui/counter-badges";
import { EditError } from "./edit-feedback";
import { usePlaybookEdit } from "./use-playbook-edit";

// ---- section ------------------------------------------------------------------------------

export function BulletSectionEditor({ bullet, playbook }: { bullet: BulletDetail; playbook: PlaybookDetail }) {
  const edit = usePlaybookEdit(playbook);
  const [target, setTarget] = useState(bullet.sectionId);
  const canEdit = useCan("bullet.edit");
  const sections = [...playbook.sections].sort((a, b) => a.position - b.position);
  if (bullet.status !== "active" || !canEdit) return <span>{bullet.sectionName}</span>;
  const chosen = sections.find((section) => section.id === target);
  const moving = target !== bullet.sectionId && chosen !== undefined;
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <Select
          label="Section"
          className="min-w-0 max-w-full flex-1 sm:max-w-72"
          value={target}
          onValueChange={(value) => {
            setTarget(value);
            edit.reset();
          }}
          options={sections.map((section) => ({ value: section.id, label: section.name, textValue: section.name }))}
        />
        {moving ? (
          <>
            <Button
              size="sm"
              variant="primary"
              className="h-9"
              disabled={edit.isPending}
              onClick={() =>
                edit.save(
                  [{ type: "update", bulletId: bullet.externalId, section: chosen.id }],
                  `Moved [${bullet.externalId}] to ${chosen.name}`,
                )
              }
            >
              {edit.isPending ? "Moving…" : "Move"}
            </Button>
            <Button size="sm" variant="ghost" className="h-9" onClick={() => setTarget(bullet.sectionId)}>
              Cancel
            </Button>
          </>
        ) : null}
      </div>
      <EditError error={edit.error} onReset={() => edit.reset()} />
    </div>
  );
}

// ---- status -------------------------------------------------------------------------------

export function BulletStatusEditor({ bullet, playbook }: { bullet: BulletDetail; playbook: PlaybookDetail }) {
  const id = useId();
  const edit = usePlaybookEdit(playbook);
  const [archiving, setArchiving] = useState(false);
  const [reason, setReason] = useState("");
  const [missing, setMissing] = useState(false);

  if (bullet.status === "archived") {
    return (
      <div className="flex flex-col items-start gap-1.5">
        <Badge tone="gray">Archived</Badge>
        {bullet.archivedReason ? <p className="text-ink-muted">{bullet.archivedReason}</p> : null}
        {bullet.mergedInto ? (
          <p className="text-ink-muted">
            Merged into <span className="font-mono text-xs text-ink">[{bullet.mergedInto}]</span>
          </p>
        ) : null}
        <RoleGate action="bullet.edit">
          <Button
            size="sm"
            variant="secondary"
            className="mt-1"
            disabled={edit.isPending}
            onClick={() => edit.save([{ type: "restore", bulletId: bullet.externalId }], `Restored [${bullet.externalId}]`)}
          >
            <ArchiveRestore aria-hidden /> {edit.isPending ? "Restoring…" : "Restore"}
          </Button>
        </RoleGate>
        <EditError error={edit.error} onReset={() => edit.reset()} />
      </div>
    );
  }

  function archive() {
    const why = reason.trim();
    if (!why) return setMissing(true);
    edit.save([{ type: "remove", bulletId: bullet.externalId, reason: why }], why, () => {
      setArchiving(false);
      setReason("");
    });
  }

  const error = missing && !reason.trim() ? "Say why it is archived; the reason stays with the bullet." : undefined;
  return (
    <div className="flex flex-col items-start gap-2">
      <div className="flex items-center gap-2">
        <Badge tone="green">Active</Badge>
        {archiving ? null : (
          <RoleGate action="bullet.edit">
            <Button size="sm" variant="ghost" className="h-7" onClick={() => setArchiving(true)}>
              <Archive aria-hidden /> Archive…
            </Button>
          </RoleGate>
        )}
      </div>
      {archiving ? (
        <div
          data-own-escape
          className="flex w-full flex-col gap-2.5 rounded-lg border border-line bg-subtle/50 p-3"
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              setArchiving(false);
            }
            if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) archive();
          }}
        >
          <Field id={`${id}-reason`} label="Why archive it?" error={error} hint="Archived bullets leave the prompt but stay restorable.">
            <Textarea
              {...fieldAria(`${id}-reason`, error, true)}
              autoFocus
              rows={2}
              className="min-h-16"
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              placeholder="e.g. Superseded by [str-00012]"
            />
          </Field>
          <EditError error={edit.error} onReset={() => edit.reset()} />
          <div className="flex justify-end gap-2">
            <Button size="sm" variant="secondary" onClick={() => setArchiving(false)}>
              Cancel
            </Button>
            <Button size="sm" variant="danger" disabled={edit.isPending} onClick={archive}>
              {edit.isPending ? "Archiving…" : "Archive"}
            </Button>
          </div>
        </div>
      ) : null}
    </div>
  );
}

// ---- counters -----------------------------------------------------------------------------

const COUNTERS = ["helpful", "harmful", "neutral"] as const;
type CounterKey = (typeof COUNTERS)[number];

export function BulletCounterEditor({ bullet, playbook }: { bullet: BulletDetail; playbook: PlaybookDetail }) {
  const id = useId();
  const edit = usePlaybookEdit(playbook);
  const [values, setValues] = useState<Record<CounterKey, number> | null>(null);
  const [reason, setReason] = useState("");
  const [missing, setMissing] = useState(false);

  if (values === null) {
    return (
      <div className="flex flex-wrap items-center gap-2">
        <CounterBadges helpful={bullet.helpful} harmful={bullet.harmful} neutral={bullet.neutral} countersKnown={bullet.countersKnown} />
        {bullet.status === "active" ? (
          <RoleGate action="bullet.edit">
            <Button
              size="sm"
              variant="ghost"
              className="h-7"
              onClick={() => setValues({ helpful: bullet.helpful, harmful: bullet.harmful, neutral: bullet.neutral })}
            >
              <SlidersHorizontal aria-hidden /> Adjust
            </Button>
          </RoleGate>
        ) : null}
      </div>
    );
  }

  const changes = Object.fromEntries(COUNTERS.map((key) => [key, values[key] - bullet[key]])) as Record<CounterKey, number>;
  const changed = COUNTERS.some((key) => changes[key] !== 0);

  function close() {
    setValues(null);
    setReason("");
    setMissing(false);
    edit.reset();
  }

  function save() {
    if (!changed) return close();
    const why = reason.trim();
    if (!why) return setMissing(true);
    // The tag operation takes increments: what the person set minus what the bullet has now.
    edit.save(
      [
        {
          type: "tag",
          bulletId: bullet.externalId,
          ...Object.fromEntries(COUNTERS.filter((key) => changes[key] !== 0).map((key) => [key, changes[key]])),
        },
      ],
      why,
      close,
    );
  }

  const error = missing && !reason.trim() ? "Say why the counters change; it is recorded in the history." : undefined;
  return (
    <div
      data-own-escape
      className="flex flex-col gap-3 rounded-lg border border-line bg-subtle/50 p-3"
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          close();
        }
        if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) save();
      }}
    >
      <div className="flex flex-wrap gap-x-4 gap-y-2">
        {COUNTERS.map((key) => (
          <Stepper
            key={key}
            label={key}
            value={values[key]}
            change={changes[key]}
            onChange={(value) => setValues({ ...values, [key]: value })}
          />
        ))}
      </div>
      <Field id={`${id}-reason`} label="Why?" error={error}>
        <Input
          {...fieldAria(`${id}-reason`, error)}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          placeholder="e.g. Counted twice in run 12"
        />
      </Field>
      <EditError error={edit.error} onReset={close} />
      <div className="flex justify-end gap-2">
        <Button size="sm" variant="secondary" onClick={close}>
          Cancel
        </Button>
        <Button size="sm" variant="primary" disabled={edit.isPending || !changed} onClick={save}>
          {edit.isPending ? "Saving…" : "Save counters"}
        </Button>
      </div>
    </div>
  );
}

function Stepper({ label, value, change, onChange }: { label: string; value: number; change: number; onChange: (value: number) => void }) {
  const id = useId();
  const name = `${label[0]?.toUpperCase()}${label.slice(1)}`;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-ink-muted">
        {name}
      </label>
      <div className="flex items-center">
        <Button
          size="icon"
          variant="secondary"
          className="size-8 rounded-r-none"
          aria-label={`Decrease ${label}`}
          disabled={value <= 0}
          onClick={() => onChange(Math.max(0, value - 1))}
        >
          <Minus aria-hidden />
        </Button>
        <input
          id={id}
          type="number"
          min={0}
          inputMode="numeric"
          value={value}
          onChange={(event) => onChange(Math.max(0, Math.floor(Number(event.target.value) || 0)))}
          className="h-8 w-14 border-y border-line-strong bg-surface text-center text-sm tabular-nums text-ink [appearance:textfield] focus-visible:outline-2 focus-visible:outline-offset-0 [&::-webkit-inner-spin-button]:appearance-none"
        />
        <Button
          size="icon"
          variant="secondary"
          className="size-8 rounded-l-none"
          aria-label={`Increase ${label}`}
          onClick={() => onChange(value + 1)}
        >
          <Plus aria-hidden />
        </Button>
        <span
          className={cn(
            "ml-2 w-8 text-xs font-medium tabular-nums",
            change > 0 ? "text-emerald-700" : change < 0 ? "text-rose-700" : "text-transparent",
          )}
        >
          {change > 0 ? `+${change}` : change < 0 ? `−${Math.abs(change)}` : "±0"}
        </span>
      </div>
    </div>
  );
}
