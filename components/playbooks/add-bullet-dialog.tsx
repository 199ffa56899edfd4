"use client";
// Add a bullet to a section. It gets the playbook's next id and lands at the end of the section,
// as a new version by the person. Its sheet opens only when asked (the toast's "Open"): opening it
// by itself a moment later covered the page the person was working on.
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button, SubmitButton } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Dialog, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { Field, fieldAria, Input, Textarea } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { formatNumber } from "@/components/ui/format";
import { findingText } from "@/components/shared/operation-findings";
import type { PlaybookDetail } from "@/server/playbooks/schemas";
import { EditError } from "./edit-feedback";
import { usePlaybookEdit } from "./use-playbook-edit";

export function AddBulletDialog({
  playbook,
  sectionId,
  onClose,
  onAdded,
}: {
  playbook: PlaybookDetail;
  /** Open with this section chosen; undefined: closed. null: open, the person chooses. */
  sectionId: string | null | undefined;
  onClose: () => void;
  onAdded: (externalId: string) => void;
}) {
  const open = sectionId !== undefined;
  return (
    <Dialog open={open} onOpenChange={(next) => (next ? undefined : onClose())}>
      {open ? (
        <DialogContent
          title="Add a bullet"
          description="It gets the next id and goes at the end of the section, as a new version."
          className="max-w-xl"
        >
          <AddBulletForm playbook={playbook} initialSectionId={sectionId} onDone={onClose} onAdded={onAdded} />
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

function AddBulletForm({
  playbook,
  initialSectionId,
  onDone,
  onAdded,
}: {
  playbook: PlaybookDetail;
  initialSectionId: string | null;
  onDone: () => void;
  onAdded: (externalId: string) => void;
}) {
  const id = useId();
  const sections = [...playbook.sections].sort((a, b) => a.position - b.position);
  const [sectionId, setSectionId] = useState(initialSectionId ?? sections[0]?.id ?? "");
  const [content, setContent] = useState("");
  const [reason, setReason] = useState("");
  const [missing, setMissing] = useState(false);
  const edit = usePlaybookEdit(playbook, { ownSuccessToast: true });
  const max = playbook.settings.maxContentLength;
  const section = sections.find((s) => s.id === sectionId);

  function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!content.trim() || !section) return setMissing(true);
    edit.save([{ type: "add", section: section.id, content }], reason.trim() || `Added a bullet to ${section.name}`, (outcome) => {
      const duplicate = outcome.findings.find((finding) => finding.kind === "near_duplicate");
      const added = outcome.addedIds[0];
      const open = added ? { action: { label: "Open", onClick: () => onAdded(added) } } : {};
      const message = added ? `Added [${added}] as version ${outcome.appliedVersion}.` : outcome.message;
      if (duplicate) toast.warning(`${message} It looks like a near-duplicate.`, { description: findingText(duplicate.message), ...open });
      else toast.success(message, open);
      onDone();
    });
  }

  const contentError = missing && !content.trim() ? "Write what the agent should know." : undefined;
  return (
    <form
      onSubmit={submit}
      noValidate
      className="flex flex-col gap-4"
      onKeyDown={(event) => {
        if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) submit();
      }}
    >
      <Field id={`${id}-section`} label="Section">
        <Select
          id={`${id}-section`}
          value={sectionId}
          onValueChange={setSectionId}
          options={sections.map((s) => ({ value: s.id, label: s.name, hint: s.bulletCount, textValue: s.name }))}
          className="w-full"
        />
      </Field>
      <Field id={`${id}-content`} label="Content" error={contentError}>
        <Textarea
          {...fieldAria(`${id}-content`, contentError)}
          autoFocus
          rows={5}
          value={content}
          onChange={(event) => setContent(event.target.value)}
          placeholder="e.g. Always paginate through every page of results before answering."
        />
      </Field>
      <p className={cn("-mt-3 text-right text-xs tabular-nums", content.length > max ? "font-medium text-danger" : "text-ink-faint")}>
        {formatNumber(content.length)} / {formatNumber(max)} characters
      </p>
      <Field id={`${id}-reason`} label="Why" optional hint="Recorded in the history with the new version.">
        <Input {...fieldAria(`${id}-reason`, undefined, true)} value={reason} onChange={(event) => setReason(event.target.value)} />
      </Field>
      <EditError error={edit.error} onReset={() => edit.reset()} />
      <DialogFooter>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <SubmitButton pending={edit.isPending} pendingLabel="Adding…">
          Add bullet
        </SubmitButton>
      </DialogFooter>
    </form>
  );
}
