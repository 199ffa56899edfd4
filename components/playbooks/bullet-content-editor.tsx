"use client";
// The bullet's content, edited in place: ⌘/Ctrl+Enter saves, Escape cancels (and leaves the sheet
// open). A save is a new version; its near-duplicate warnings show under the text.
import { Pencil } from "lucide-react";
import { useId, useState } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input, Label, Textarea } from "@/components/ui/input";
import { SubmitHint } from "@/components/ui/kbd";
import { formatNumber } from "@/components/ui/format";
import type { BulletDetail, PlaybookDetail } from "@/server/playbooks/schemas";
import { EditError, EditWarnings } from "./edit-feedback";
import { usePlaybookEdit } from "./use-playbook-edit";

/** Opens the editor with the caret after the text, where an addition usually goes. */
function focusAtEnd(textarea: HTMLTextAreaElement | null) {
  if (!textarea) return;
  textarea.focus();
  textarea.setSelectionRange(textarea.value.length, textarea.value.length);
}

export function BulletContentEditor({ bullet, playbook }: { bullet: BulletDetail; playbook: PlaybookDetail }) {
  const id = useId();
  const edit = usePlaybookEdit(playbook);
  /** null: reading; a string: the text being edited. */
  const [draft, setDraft] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const max = playbook.settings.maxContentLength;
  const editable = bullet.status === "active";

  function cancel() {
    setDraft(null);
    setReason("");
    edit.reset();
  }

  function save() {
    if (draft === null || edit.isPending) return;
    if (draft.trim() === bullet.content) return cancel();
    edit.save(
      [{ type: "update", bulletId: bullet.externalId, content: draft }],
      reason.trim() || `Edited the content of [${bullet.externalId}]`,
      () => {
        setDraft(null);
        setReason("");
      },
    );
  }

  return (
    <section aria-labelledby={`${id}-heading`} className="flex flex-col gap-2">
      <div className="flex min-h-8 items-center justify-between gap-2">
        <h3 id={`${id}-heading`} className="text-[13px] font-medium text-ink-faint">
          Content
        </h3>
        {editable && draft === null ? (
          <RoleGate action="bullet.edit">
            <Button size="sm" variant="ghost" onClick={() => setDraft(bullet.content)}>
              <Pencil aria-hidden /> Edit
            </Button>
          </RoleGate>
        ) : null}
      </div>
      {draft === null ? (
        // pre-wrap: the content is shown exactly as the agent will read it, newlines and all.
        <div className="whitespace-pre-wrap break-words rounded-lg border border-line bg-subtle/60 p-4 text-sm leading-relaxed text-ink">
          {bullet.content}
        </div>
      ) : (
        <div
          data-own-escape
          className="flex flex-col gap-3"
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              cancel();
            }
            if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) {
              event.preventDefault();
              save();
            }
          }}
        >
          <Textarea
            aria-label="Bullet content"
            aria-describedby={`${id}-count`}
            aria-invalid={draft.length > max ? true : undefined}
            ref={focusAtEnd}
            rows={Math.min(14, Math.max(5, Math.ceil(draft.length / 70)))}
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
          <p
            id={`${id}-count`}
            className={cn("-mt-1.5 text-right text-xs tabular-nums", draft.length > max ? "font-medium text-danger" : "text-ink-faint")}
          >
            {formatNumber(draft.length)} / {formatNumber(max)} characters{draft.length > max ? " — too long for this playbook" : ""}
          </p>
          <div className="flex flex-col gap-1.5">
            <Label htmlFor={`${id}-reason`}>
              Why <span className="font-normal text-ink-faint">(optional, recorded in the history)</span>
            </Label>
            <Input
              id={`${id}-reason`}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              placeholder="e.g. Clarify when the rule applies"
            />
          </div>
          <EditError error={edit.error} onReset={cancel} />
          <div className="flex flex-wrap items-center justify-end gap-2">
            <SubmitHint />
            <Button size="sm" variant="secondary" onClick={cancel}>
              Cancel
            </Button>
            <Button size="sm" variant="primary" disabled={edit.isPending} onClick={save}>
              {edit.isPending ? "Saving…" : "Save"}
            </Button>
          </div>
        </div>
      )}
      {draft === null && edit.data ? <EditWarnings findings={edit.data.findings} playbookId={playbook.id} /> : null}
    </section>
  );
}
