"use client";
// Managing sections: a small menu per section (add a bullet, rename, move up or down) and the
// dialog that names a new section or renames one. Each change is a new version by the person.
import { ArrowDown, ArrowUp, MoreHorizontal, Pencil, Plus, Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { Button, SubmitButton } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Dialog, DialogContent, DialogFooter } from "@/components/ui/dialog";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { formatNumber } from "@/components/ui/format";
import { SECTION_NAME_MAX } from "@/server/deltas/schemas";
import type { PlaybookDetail, SectionSummary } from "@/server/playbooks/schemas";
import { EditError } from "./edit-feedback";
import { usePlaybookEdit } from "./use-playbook-edit";

export type SectionNaming = { kind: "add" } | { kind: "rename"; section: SectionSummary };

export interface SectionActions {
  addBullet: (sectionId: string | null) => void;
  name: (naming: SectionNaming) => void;
}

export function SectionActionsMenu({
  playbook,
  section,
  actions,
  className,
}: {
  playbook: PlaybookDetail;
  section: SectionSummary;
  actions: SectionActions;
  className?: string;
}) {
  const edit = usePlaybookEdit(playbook, { errorsAsToasts: true });
  const ordered = [...playbook.sections].sort((a, b) => a.position - b.position);
  const index = ordered.findIndex((s) => s.id === section.id);

  function move(to: number) {
    edit.save([{ type: "move_section", section: section.id, position: to }], `Moved section ${section.name} ${to < index ? "up" : "down"}`);
  }

  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button
          size="icon"
          variant="ghost"
          className={cn("size-7 text-ink-faint", className)}
          aria-label={`Actions for section ${section.name}`}
          title="Section actions"
          disabled={edit.isPending}
        >
          <MoreHorizontal aria-hidden />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="w-52">
        <DropdownMenuLabel>{section.name}</DropdownMenuLabel>
        <DropdownMenuItem onSelect={() => actions.addBullet(section.id)}>
          <Plus aria-hidden /> Add a bullet here
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => actions.name({ kind: "rename", section })}>
          <Pencil aria-hidden /> Rename…
        </DropdownMenuItem>
        <DropdownMenuSeparator />
        <DropdownMenuItem disabled={index <= 0} onSelect={() => move(index - 1)}>
          <ArrowUp aria-hidden /> Move up
        </DropdownMenuItem>
        <DropdownMenuItem disabled={index < 0 || index >= ordered.length - 1} onSelect={() => move(index + 1)}>
          <ArrowDown aria-hidden /> Move down
        </DropdownMenuItem>
        {section.bulletCount === 0 ? (
          <>
            <DropdownMenuSeparator />
            <DropdownMenuItem
              onSelect={() => edit.save([{ type: "remove_section", section: section.id }], `Deleted the empty section ${section.name}`)}
            >
              <Trash2 aria-hidden /> Delete section
            </DropdownMenuItem>
          </>
        ) : null}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

export function SectionNameDialog({
  playbook,
  naming,
  onClose,
}: {
  playbook: PlaybookDetail;
  naming: SectionNaming | null;
  onClose: () => void;
}) {
  return (
    <Dialog open={naming !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      {naming ? (
        <DialogContent
          title={naming.kind === "add" ? "Add a section" : "Rename the section"}
          description={
            naming.kind === "add"
              ? "It goes after the other sections. Its bullets get ids from the section's name."
              : "Bullets keep their ids; the playbook's text shows the new name."
          }
        >
          <SectionNameForm playbook={playbook} naming={naming} onDone={onClose} />
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

function SectionNameForm({ playbook, naming, onDone }: { playbook: PlaybookDetail; naming: SectionNaming; onDone: () => void }) {
  const id = useId();
  const [name, setName] = useState(naming.kind === "rename" ? naming.section.name : "");
  const [missing, setMissing] = useState(false);
  const edit = usePlaybookEdit(playbook);

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > SECTION_NAME_MAX) return setMissing(true);
    if (naming.kind === "add") {
      edit.save([{ type: "add_section", name: trimmed }], `Added section ${trimmed}`, onDone);
    } else if (trimmed === naming.section.name) {
      onDone();
    } else {
      edit.save(
        [{ type: "rename_section", section: naming.section.id, name: trimmed }],
        `Renamed section ${naming.section.name} to ${trimmed}`,
        onDone,
      );
    }
  }

  const error = !missing
    ? undefined
    : !name.trim()
      ? "A section needs a name."
      : name.trim().length > SECTION_NAME_MAX
        ? `A section name has at most ${SECTION_NAME_MAX} characters; this one has ${formatNumber(name.trim().length)}.`
        : undefined;
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <Field id={`${id}-name`} label="Name" error={error}>
        <Input
          {...fieldAria(`${id}-name`, error)}
          autoFocus
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="e.g. Date handling"
        />
      </Field>
      <EditError error={edit.error} onReset={() => edit.reset()} />
      <DialogFooter>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <SubmitButton pending={edit.isPending} pendingLabel="Saving…">
          {naming.kind === "add" ? "Add section" : "Rename"}
        </SubmitButton>
      </DialogFooter>
    </form>
  );
}
