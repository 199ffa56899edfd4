"use client";
// Import a playbook file, uploaded or pasted, into a new playbook or an existing one. The server
// parses it in one transaction: on error nothing is written, and its message (with line numbers)
// is shown as it came. "Propose for review" turns what an external ACE loop changed since the
// version it started from into one pending delta instead of a new version.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ClipboardPaste, FileUp, Upload } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState, type DragEvent, type FormEvent, type ReactElement } from "react";
import { toast } from "sonner";
import { RoleGate, type ControlProps } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { DialogButton, DialogFooter } from "@/components/ui/dialog";
import { Field, fieldAria, Input, Textarea } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { useTRPC } from "@/components/trpc/client";
import { decodeUtf8, InvalidUtf8Error, PLAYBOOK_FORMATS, type ImportMode, type PlaybookFormat } from "@/server/playbooks/schemas";
import { Choice } from "./choice";
import { errorMessage, fieldErrors } from "@/components/ui/errors";
import { plural } from "@/components/ui/format";
import { FORMAT_LABELS } from "./labels";

type FormatChoice = PlaybookFormat | "auto";

const FORMAT_OPTIONS: { value: FormatChoice; label: string }[] = [
  { value: "auto", label: "Auto-detect" },
  ...PLAYBOOK_FORMATS.map((format) => ({ value: format, label: FORMAT_LABELS[format] })),
];

/** "skillbook_2026.json" → "skillbook_2026"; names cannot hold slashes, so those go too. */
export function nameFromFileName(fileName: string): string {
  return fileName
    .replace(/\.[^.]+$/, "")
    .replace(/[/\\\t\r\n]+/g, " ")
    .trim()
    .slice(0, 120);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The trigger is shown disabled, naming the role it needs, to anyone who may not import (curators and admins may). */
export function ImportDialog({
  trigger,
  presetPlaybookId,
}: {
  trigger: ReactElement<ControlProps>;
  /** Open with "into this playbook" chosen (from a playbook's page). */
  presetPlaybookId?: string;
}) {
  return (
    <RoleGate action="playbook.import" control={trigger}>
      <DialogButton
        button={trigger}
        className="max-w-xl"
        title={presetPlaybookId ? "Import into this playbook" : "Import a playbook"}
        description="ACE text (with or without counters), a kayba skillbook, or ACE Studio JSON."
      >
        {(close) => <ImportForm presetPlaybookId={presetPlaybookId} onDone={close} />}
      </DialogButton>
    </RoleGate>
  );
}

function ImportForm({ presetPlaybookId, onDone }: { presetPlaybookId?: string; onDone: () => void }) {
  const id = useId();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();

  const [source, setSource] = useState<"file" | "paste">("file");
  const [file, setFile] = useState<File | null>(null);
  const [pasted, setPasted] = useState("");
  const [format, setFormat] = useState<FormatChoice>("auto");
  const [targetKind, setTargetKind] = useState<"new" | "existing">(presetPlaybookId ? "existing" : "new");
  const [name, setName] = useState("");
  const [nameEdited, setNameEdited] = useState(false);
  const [existingId, setExistingId] = useState(presetPlaybookId ?? "");
  const [mode, setMode] = useState<ImportMode>("merge");
  const [baseVersion, setBaseVersion] = useState("");
  const [rationale, setRationale] = useState("");
  const [localError, setLocalError] = useState<string | null>(null);

  const playbooks = useQuery({ ...trpc.playbook.list.queryOptions(), enabled: targetKind === "existing" });

  const mutation = useMutation(
    trpc.playbook.import.mutationOptions({
      onSuccess: async (result) => {
        const { proposal } = result;
        // What the file held that was read the way the ACE implementations read it: said once, kept in view.
        if (result.warnings.length > 0) {
          toast.warning(`${plural(result.warnings.length, "note")} on how the file was read`, {
            description: result.warnings.join("\n"),
            duration: Infinity,
            closeButton: true,
          });
        }
        if (proposal) {
          await queryClient.invalidateQueries({ queryKey: trpc.delta.pathKey() });
          onDone();
          if (proposal.deltaId === null) {
            toast.info("Nothing to propose", { description: proposal.message });
            return;
          }
          toast.success(`Proposed for review in “${result.name}”`, { description: proposal.message });
          router.push(`/playbooks/${result.playbookId}/review?delta=${proposal.deltaId}`);
          return;
        }
        toast.success(`Imported “${result.name}”`, {
          description: `${plural(result.bulletCount, "bullet")} in ${plural(result.sectionCount, "section")} · version ${result.version}`,
        });
        await queryClient.invalidateQueries({ queryKey: trpc.playbook.pathKey() });
        onDone();
        router.push(`/playbooks/${result.playbookId}`);
      },
    }),
  );
  const errors = fieldErrors(mutation.error);

  function chooseFile(next: File | null) {
    setFile(next);
    setLocalError(null);
    mutation.reset();
    // The name follows the file until the user types their own.
    if (next && !nameEdited) setName(nameFromFileName(next.name));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setLocalError(null);
    let content = source === "paste" ? pasted : undefined;
    if (source === "file" && file) {
      try {
        // Not file.text(): it would put U+FFFD in place of bytes that are not UTF-8, without a word.
        content = decodeUtf8(new Uint8Array(await file.arrayBuffer()));
      } catch (error) {
        if (!(error instanceof InvalidUtf8Error)) throw error;
        setLocalError(`${file.name}: ${error.message}. Nothing was imported.`);
        return;
      }
    }
    if (!content) {
      setLocalError(source === "file" ? "Choose a playbook file first." : "Paste the playbook text first.");
      return;
    }
    if (targetKind === "existing" && !existingId) {
      setLocalError("Choose the playbook to import into.");
      return;
    }
    const base = baseVersion.trim();
    if (targetKind === "existing" && mode === "propose" && base !== "" && !/^\d+$/.test(base)) {
      setLocalError("The base version is a version number, e.g. 7; leave it empty for the current version.");
      return;
    }
    const proposal =
      mode === "propose"
        ? { ...(base ? { baseVersion: Number(base) } : {}), ...(rationale.trim() ? { rationale: rationale.trim() } : {}) }
        : {};
    mutation.mutate({
      content,
      format,
      ...(source === "file" && file ? { fileName: file.name } : {}),
      target:
        targetKind === "new"
          ? { kind: "new", name: name || (source === "paste" ? "Pasted playbook" : "") }
          : { kind: "existing", playbookId: existingId, mode, ...proposal },
    });
  }

  const problem = localError ?? (mutation.isError ? errorMessage(mutation.error) : null);
  const proposing = targetKind === "existing" && mode === "propose";
  const chosen = playbooks.data?.find((playbook) => playbook.id === existingId);

  return (
    <form onSubmit={submit} className="flex flex-col gap-5" noValidate>
      <Tabs value={source} onValueChange={(v) => setSource(v === "paste" ? "paste" : "file")}>
        <TabsList aria-label="Source">
          <TabsTrigger value="file">
            <Upload aria-hidden /> Upload file
          </TabsTrigger>
          <TabsTrigger value="paste">
            <ClipboardPaste aria-hidden /> Paste text
          </TabsTrigger>
        </TabsList>
        <TabsContent value="file" className="mt-3">
          <DropZone inputId={`${id}-file`} file={file} onFile={chooseFile} />
        </TabsContent>
        <TabsContent value="paste" className="mt-3">
          <Field id={`${id}-paste`} label="Playbook text" error={errors.content}>
            <Textarea
              {...fieldAria(`${id}-paste`, errors.content)}
              value={pasted}
              onChange={(e) => setPasted(e.target.value)}
              rows={8}
              spellCheck={false}
              placeholder={"## STRATEGIES AND HARD RULES\n[str-00001] helpful=0 harmful=0 :: …"}
              className="font-mono text-xs"
            />
          </Field>
        </TabsContent>
      </Tabs>

      <Field id={`${id}-format`} label="Format" hint="Auto-detect reads the file and picks the matching parser.">
        <Select<FormatChoice> id={`${id}-format`} value={format} onValueChange={setFormat} options={FORMAT_OPTIONS} className="w-full" />
      </Field>

      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1.5 text-[13px] font-medium text-ink">Import into</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          <Choice
            name={`${id}-target`}
            value="new"
            checked={targetKind === "new"}
            onChange={() => setTargetKind("new")}
            title="A new playbook"
          />
          <Choice
            name={`${id}-target`}
            value="existing"
            checked={targetKind === "existing"}
            onChange={() => setTargetKind("existing")}
            title={presetPlaybookId ? "This playbook" : "An existing playbook"}
          />
        </div>
      </fieldset>

      {targetKind === "new" ? (
        <Field id={`${id}-name`} label="Name" error={errors.target} hint="Defaults to the file name.">
          <Input
            {...fieldAria(`${id}-name`, errors.target, true)}
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setNameEdited(true);
            }}
            placeholder={source === "paste" ? "Pasted playbook" : "e.g. AppWorld offline"}
            maxLength={120}
          />
        </Field>
      ) : (
        <div className="flex flex-col gap-4">
          {presetPlaybookId ? null : (
            <Field id={`${id}-existing`} label="Playbook" error={errors.target}>
              <Select
                id={`${id}-existing`}
                value={existingId}
                onValueChange={setExistingId}
                placeholder={playbooks.isPending ? "Loading playbooks…" : "Choose a playbook"}
                options={(playbooks.data ?? []).map((p) => ({ value: p.id, label: p.name, hint: p.bulletCount }))}
                className="w-full"
              />
            </Field>
          )}
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1.5 text-[13px] font-medium text-ink">How</legend>
            <Choice name={`${id}-mode`} value="merge" checked={mode === "merge"} onChange={() => setMode("merge")} title="Merge">
              Adds bullets with new ids and updates the ones it already has (content, section, counters); nothing is removed.
            </Choice>
            <Choice name={`${id}-mode`} value="replace" checked={mode === "replace"} onChange={() => setMode("replace")} title="Replace">
              The same, and active bullets missing from the file are archived (never deleted, so it can be undone).
            </Choice>
            <Choice
              name={`${id}-mode`}
              value="propose"
              checked={mode === "propose"}
              onChange={() => setMode("propose")}
              title="Propose for review"
            >
              For a playbook an ACE loop evolved outside ACE Studio: what it changed since the version it started from becomes one delta in
              the review queue. Changes made here since are kept; nothing changes until approved.
            </Choice>
          </fieldset>
          {proposing ? (
            <div className="grid gap-4 sm:grid-cols-[10rem_1fr]">
              <Field
                id={`${id}-base`}
                label="Base version"
                optional
                hint={chosen ? `Empty: the current version, v${chosen.version}.` : "Empty: the current version."}
              >
                <Input
                  {...fieldAria(`${id}-base`, undefined, true)}
                  value={baseVersion}
                  onChange={(e) => setBaseVersion(e.target.value)}
                  inputMode="numeric"
                  placeholder={chosen ? String(chosen.version) : "current"}
                />
              </Field>
              <Field id={`${id}-rationale`} label="Why" optional hint="Shown to the reviewer; default a summary of the changes.">
                <Input
                  {...fieldAria(`${id}-rationale`, undefined, true)}
                  value={rationale}
                  onChange={(e) => setRationale(e.target.value)}
                  placeholder="e.g. Nightly LangChain ACE run"
                  maxLength={10_000}
                />
              </Field>
            </div>
          ) : null}
        </div>
      )}

      {problem ? (
        <div role="alert" className="rounded-lg border border-rose-200 bg-danger-soft px-4 py-3 text-sm text-rose-900">
          <p className="font-medium">{localError ? problem : `The ${proposing ? "proposal" : "import"} failed. Nothing was written.`}</p>
          {localError ? null : <p className="mt-1 whitespace-pre-wrap break-words font-mono text-xs leading-relaxed">{problem}</p>}
        </div>
      ) : null}

      <DialogFooter>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" disabled={mutation.isPending}>
          <FileUp aria-hidden />
          {proposing ? (mutation.isPending ? "Proposing…" : "Propose") : mutation.isPending ? "Importing…" : "Import"}
        </Button>
      </DialogFooter>
    </form>
  );
}

/** A file input that also takes a dropped file. The input stays in the tab order (visually hidden). */
function DropZone({ inputId, file, onFile }: { inputId: string; file: File | null; onFile: (file: File | null) => void }) {
  const [dragging, setDragging] = useState(false);

  function onDrop(event: DragEvent<HTMLLabelElement>) {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer.files[0];
    if (dropped) onFile(dropped);
  }

  return (
    <label
      htmlFor={inputId}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      className={cn(
        "flex cursor-pointer flex-col items-center justify-center gap-1.5 rounded-lg border-2 border-dashed px-4 py-7 text-center transition-colors",
        "has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-focus",
        dragging ? "border-accent bg-accent-soft" : "border-line-strong hover:border-ink-faint/60 hover:bg-subtle/60",
      )}
    >
      <span className="sr-only">Playbook file</span>
      <input
        id={inputId}
        type="file"
        accept=".txt,.json,.md,text/plain,application/json"
        className="sr-only"
        onChange={(event) => onFile(event.target.files?.[0] ?? null)}
      />
      <Upload aria-hidden className="size-5 text-ink-faint" />
      {file ? (
        <>
          <span className="max-w-full truncate text-sm font-medium text-ink">{file.name}</span>
          <span className="text-xs text-ink-faint">{formatBytes(file.size)} · click or drop to choose another file</span>
        </>
      ) : (
        <>
          <span className="text-sm font-medium text-ink">Drop a playbook file here, or click to choose</span>
          <span className="text-xs text-ink-faint">.txt or .json, up to 25 MB</span>
        </>
      )}
    </label>
  );
}
