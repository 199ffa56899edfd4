"use client";
// Inline editing of one proposed operation, a form per operation type. The type itself cannot
// change (the server keeps it), so the fields are the type's own.
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input, Textarea } from "@/components/ui/input";
import { SubmitHint } from "@/components/ui/kbd";
import { Notice } from "@/components/ui/notice";
import { Select } from "@/components/ui/select";
import type { BulletSnapshot, DeltaOperation, OperationInput } from "@/server/deltas/schemas";

type Op<T extends DeltaOperation["type"]> = Extract<DeltaOperation, { type: T }>;

/** Operation types with something to edit (a restore, pin or unpin names only its bullet). */
export function isEditable(operation: DeltaOperation): boolean {
  // These have nothing to edit but their target: reject it and propose another.
  return !["restore", "remove_section", "pin", "unpin"].includes(operation.type);
}

const KEEP = "__keep__";

/** The engine's operation as procedure input (its merge lists are read-only, the input's are not). */
export function toOperationInput(operation: DeltaOperation): OperationInput {
  return operation.type === "merge" ? { ...operation, bulletIds: [...operation.bulletIds] } : operation;
}

export function OperationForm({
  operation,
  current,
  sections,
  pending,
  error,
  onSave,
  onCancel,
}: {
  operation: DeltaOperation;
  /** The bullet the operation targets, as it is now (update: defaults for the fields). */
  current: BulletSnapshot | undefined;
  sections: readonly string[];
  pending: boolean;
  error: string | null;
  onSave: (operation: DeltaOperation) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [draft, setDraft] = useState<Draft>(() => toDraft(operation, current));
  const [problem, setProblem] = useState<string | null>(null);
  const set = (patch: Partial<Draft>) => setDraft((previous) => ({ ...previous, ...patch }));

  function submit(event?: FormEvent) {
    event?.preventDefault();
    const built = fromDraft(operation, draft, current);
    if (typeof built === "string") {
      setProblem(built);
      return;
    }
    setProblem(null);
    onSave(built);
  }

  const sectionOptions = sections.map((name) => ({ value: name, label: name }));
  const field = (name: string) => `${id}-${name}`;
  // Adding a bullet, renaming a section and moving one all start from the section it concerns.
  const sectionField = (
    <Field id={field("section")} label="Section">
      <Select
        id={field("section")}
        value={draft.section}
        onValueChange={(section) => set({ section })}
        options={withCurrent(sectionOptions, draft.section)}
        className="w-full"
      />
    </Field>
  );
  let fields: ReactNode;
  switch (operation.type) {
    case "add":
      fields = (
        <>
          {sectionField}
          <ContentField id={field("content")} value={draft.content} onChange={(content) => set({ content })} autoFocus />
        </>
      );
      break;
    case "update":
      fields = (
        <>
          <ContentField id={field("content")} value={draft.content} onChange={(content) => set({ content })} autoFocus />
          <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_9rem]">
            <Field id={field("section")} label="Section">
              <Select
                id={field("section")}
                value={draft.section || KEEP}
                onValueChange={(section) => set({ section: section === KEEP ? "" : section })}
                options={[{ value: KEEP, label: current ? `Keep in ${current.sectionName}` : "Keep its section" }, ...sectionOptions]}
                className="w-full"
              />
            </Field>
            <Field id={field("position")} label="Place" optional hint="1 = first">
              <Input
                id={field("position")}
                inputMode="numeric"
                value={draft.position}
                onChange={(e) => set({ position: e.target.value })}
              />
            </Field>
          </div>
        </>
      );
      break;
    case "remove":
      fields = (
        <Field id={field("reason")} label="Why it is archived">
          <Input id={field("reason")} autoFocus value={draft.reason} onChange={(e) => set({ reason: e.target.value })} />
        </Field>
      );
      break;
    case "merge":
      fields = (
        <>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field id={field("into")} label="Keep (id)" hint="Keeps its id; counters are summed into it.">
              <Input id={field("into")} className="font-mono" value={draft.into} onChange={(e) => set({ into: e.target.value })} />
            </Field>
            <Field id={field("sources")} label="Merge (ids)" hint="Comma-separated; these are archived.">
              <Input id={field("sources")} className="font-mono" value={draft.sources} onChange={(e) => set({ sources: e.target.value })} />
            </Field>
          </div>
          <ContentField id={field("content")} value={draft.content} onChange={(content) => set({ content })} autoFocus />
          <Field id={field("reason")} label="Archive reason" optional>
            <Input id={field("reason")} value={draft.reason} onChange={(e) => set({ reason: e.target.value })} />
          </Field>
        </>
      );
      break;
    case "tag":
      fields = (
        <div className="grid grid-cols-3 gap-3">
          {(["helpful", "harmful", "neutral"] as const).map((key, index) => (
            <Field key={key} id={field(key)} label={`${key[0]?.toUpperCase()}${key.slice(1)} ±`}>
              <Input
                id={field(key)}
                inputMode="numeric"
                autoFocus={index === 0}
                value={draft[key]}
                onChange={(e) => set({ [key]: e.target.value })}
              />
            </Field>
          ))}
        </div>
      );
      break;
    case "add_section":
      fields = (
        <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_10rem]">
          <Field id={field("name")} label="Section name">
            <Input id={field("name")} autoFocus value={draft.name} onChange={(e) => set({ name: e.target.value })} />
          </Field>
          <Field id={field("slug")} label="Id prefix" optional>
            <Input id={field("slug")} className="font-mono" value={draft.slug} onChange={(e) => set({ slug: e.target.value })} />
          </Field>
        </div>
      );
      break;
    case "rename_section":
      fields = (
        <div className="grid gap-3 sm:grid-cols-2">
          {sectionField}
          <Field id={field("name")} label="New name">
            <Input id={field("name")} autoFocus value={draft.name} onChange={(e) => set({ name: e.target.value })} />
          </Field>
        </div>
      );
      break;
    case "move_section":
      fields = (
        <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_9rem]">
          {sectionField}
          <Field id={field("position")} label="Place" hint="1 = first">
            <Input
              id={field("position")}
              autoFocus
              inputMode="numeric"
              value={draft.position}
              onChange={(e) => set({ position: e.target.value })}
            />
          </Field>
        </div>
      );
      break;
    case "restore":
      fields = <p className="text-sm text-ink-muted">A restore has nothing to edit.</p>;
      break;
  }

  const shown = problem ?? error;
  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label="Edit the operation"
      className="flex flex-col gap-3 rounded-lg border border-accent/40 bg-accent-soft/30 p-3"
      onKeyDown={(event) => {
        if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) submit();
        if (event.key === "Escape") {
          event.preventDefault();
          onCancel();
        }
      }}
    >
      {fields}
      {shown ? (
        <Notice tone="danger" compact>
          {shown}
        </Notice>
      ) : null}
      <div className="flex flex-wrap items-center justify-end gap-2">
        <SubmitHint />
        <Button size="sm" variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
        <Button size="sm" type="submit" variant="primary" disabled={pending}>
          {pending ? "Saving…" : "Save operation"}
        </Button>
      </div>
    </form>
  );
}

function ContentField({
  id,
  value,
  onChange,
  autoFocus,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  autoFocus?: boolean;
}) {
  return (
    <Field id={id} label="Content">
      <Textarea id={id} rows={4} autoFocus={autoFocus} value={value} onChange={(e) => onChange(e.target.value)} />
    </Field>
  );
}

/** A proposal may name a section by id or another casing: keep its value choosable. */
function withCurrent(options: { value: string; label: string }[], value: string) {
  return value && !options.some((option) => option.value === value) ? [{ value, label: value }, ...options] : options;
}

// ---- draft <-> operation ------------------------------------------------------------------

interface Draft {
  section: string;
  content: string;
  position: string;
  reason: string;
  into: string;
  sources: string;
  helpful: string;
  harmful: string;
  neutral: string;
  name: string;
  slug: string;
}

const EMPTY: Draft = {
  section: "",
  content: "",
  position: "",
  reason: "",
  into: "",
  sources: "",
  helpful: "",
  harmful: "",
  neutral: "",
  name: "",
  slug: "",
};

function toDraft(op: DeltaOperation, current: BulletSnapshot | undefined): Draft {
  const count = (value: number | undefined) => (value === undefined ? "" : String(value));
  switch (op.type) {
    case "add":
      return { ...EMPTY, section: op.section, content: op.content };
    case "update":
      return {
        ...EMPTY,
        content: op.content ?? current?.content ?? "",
        section: op.section ?? "",
        position: op.position === undefined ? "" : String(op.position + 1),
      };
    case "remove":
      return { ...EMPTY, reason: op.reason };
    case "merge":
      return {
        ...EMPTY,
        into: op.into,
        sources: op.bulletIds.filter((bulletId) => bulletId !== op.into).join(", "),
        content: op.content,
        reason: op.reason ?? "",
      };
    case "tag":
      return { ...EMPTY, helpful: count(op.helpful), harmful: count(op.harmful), neutral: count(op.neutral) };
    case "add_section":
      return { ...EMPTY, name: op.name, slug: op.slug ?? "" };
    case "rename_section":
      return { ...EMPTY, section: op.section, name: op.name };
    case "move_section":
      return { ...EMPTY, section: op.section, position: String(op.position + 1) };
    case "restore":
    case "remove_section":
    case "pin":
    case "unpin":
      return EMPTY;
  }
}

/** Parses a whole number the person typed; "" is "not set". A sentence when it is not a number. */
function whole(value: string, what: string): number | undefined | string {
  const text = value.trim();
  if (text === "") return undefined;
  if (!/^[-+]?\d+$/.test(text)) return `${what} must be a whole number.`;
  return Number(text);
}

/** The edited operation, or a sentence saying what to fix first. */
function fromDraft(op: DeltaOperation, draft: Draft, current: BulletSnapshot | undefined): DeltaOperation | string {
  switch (op.type) {
    case "add":
      // The counters it starts with (an external loop's counts) stay the proposal's: the form edits the words and the place.
      return { ...op, section: draft.section, content: draft.content } satisfies Op<"add">;
    case "update": {
      const position = whole(draft.position, "The place");
      if (typeof position === "string") return position;
      if (position !== undefined && position < 1) return "The place counts from 1.";
      // Content only when it says something new (or the proposal already set it): a move stays a move.
      const content = op.content !== undefined || draft.content !== (current?.content ?? "") ? draft.content : undefined;
      return {
        type: "update",
        bulletId: op.bulletId,
        ...(content === undefined ? {} : { content }),
        ...(draft.section ? { section: draft.section } : {}),
        ...(position === undefined ? {} : { position: position - 1 }),
      } satisfies Op<"update">;
    }
    case "remove":
      return { type: "remove", bulletId: op.bulletId, reason: draft.reason } satisfies Op<"remove">;
    case "merge": {
      const sources = draft.sources
        .split(/[\s,]+/)
        .map((s) => s.replace(/^\[|\]$/g, ""))
        .filter(Boolean);
      if (sources.length === 0) return "Name at least one bullet to merge into the kept one.";
      const into = draft.into.trim().replace(/^\[|\]$/g, "");
      return {
        type: "merge",
        into,
        bulletIds: [into, ...sources.filter((s) => s !== into)],
        content: draft.content,
        ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}),
      } satisfies Op<"merge">;
    }
    case "tag": {
      const parsed = {
        helpful: whole(draft.helpful, "Helpful"),
        harmful: whole(draft.harmful, "Harmful"),
        neutral: whole(draft.neutral, "Neutral"),
      };
      for (const value of Object.values(parsed)) if (typeof value === "string") return value;
      const counts = parsed as Record<"helpful" | "harmful" | "neutral", number | undefined>;
      return {
        type: "tag",
        bulletId: op.bulletId,
        ...(counts.helpful === undefined ? {} : { helpful: counts.helpful }),
        ...(counts.harmful === undefined ? {} : { harmful: counts.harmful }),
        ...(counts.neutral === undefined ? {} : { neutral: counts.neutral }),
      } satisfies Op<"tag">;
    }
    case "add_section":
      return {
        type: "add_section",
        name: draft.name,
        ...(draft.slug.trim() ? { slug: draft.slug.trim() } : {}),
      } satisfies Op<"add_section">;
    case "rename_section":
      return { type: "rename_section", section: draft.section, name: draft.name } satisfies Op<"rename_section">;
    case "move_section": {
      const position = whole(draft.position, "The place");
      if (typeof position === "string") return position;
      if (position === undefined || position < 1) return "Say which place the section moves to, counting from 1.";
      return { type: "move_section", section: draft.section, position: position - 1 } satisfies Op<"move_section">;
    }
    case "restore":
    case "remove_section":
    case "pin":
    case "unpin":
      return op;
  }
}
