"use client";
// Export as plain download links to the export route: the browser streams the file itself, and
// the playbook's own format comes first because only it round-trips byte for byte. kayba comes in
// the flavour each kayba version reads, and each item says what the format does not carry. Last, the
// export-only files a coding agent reads from its repository (CLAUDE.md, AGENTS.md, a Cursor rule).
import { ChevronDown, Download, FileDown } from "lucide-react";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import {
  AGENT_FORMATS,
  AGENT_FORMAT_INFO,
  KAYBA_FLAVOURS,
  KAYBA_FLAVOUR_INFO,
  PLAYBOOK_FORMATS,
  type ExportFormat,
  type KaybaFlavour,
  type PlaybookFormat,
} from "@/server/playbooks/schemas";
import { FORMAT_EXTENSIONS, FORMAT_LABELS } from "./labels";

export function exportHref(playbookId: string, format?: ExportFormat, kaybaFlavour?: KaybaFlavour): string {
  const base = `/api/playbooks/${encodeURIComponent(playbookId)}/export`;
  if (!format) return base;
  return kaybaFlavour ? `${base}?format=${format}&kayba=${kaybaFlavour}` : `${base}?format=${format}`;
}

/** What a format leaves out, in a few words under its name. */
const FORMAT_NOTES: Record<PlaybookFormat, string> = {
  ace: "No neutral counts, no archived bullets.",
  "ace-plain": "No counters, no archived bullets.",
  kayba: "",
  json: "Everything, archived bullets included.",
};

export function ExportMenu({ playbookId, sourceFormat }: { playbookId: string; sourceFormat: PlaybookFormat }) {
  const others = PLAYBOOK_FORMATS.filter((f) => f !== sourceFormat && f !== "kayba");
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="secondary">
          <Download aria-hidden /> Export <ChevronDown aria-hidden className="-mr-1 text-ink-faint" />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="w-96">
        <DropdownMenuLabel>Download as</DropdownMenuLabel>
        <FormatItem
          href={exportHref(playbookId)}
          format={sourceFormat}
          note={sourceFormat === "kayba" ? "In the flavour it was imported in." : FORMAT_NOTES[sourceFormat]}
          isDefault
        />
        <DropdownMenuSeparator />
        {others.map((format) => (
          <FormatItem key={format} href={exportHref(playbookId, format)} format={format} note={FORMAT_NOTES[format]} />
        ))}
        <DropdownMenuSeparator />
        <DropdownMenuLabel>kayba skillbook, for the kayba version that reads it</DropdownMenuLabel>
        {KAYBA_FLAVOURS.map((flavour) => (
          <FormatItem
            key={flavour}
            href={exportHref(playbookId, "kayba", flavour)}
            format="kayba"
            title={`kayba skillbook for ${KAYBA_FLAVOUR_INFO[flavour].label}`}
            note={KAYBA_FLAVOUR_INFO[flavour].description.replaceAll("`", "")}
          />
        ))}
        <DropdownMenuSeparator />
        <DropdownMenuLabel>For coding agents (export only)</DropdownMenuLabel>
        {AGENT_FORMATS.map((format) => (
          <FormatItem
            key={format}
            href={exportHref(playbookId, format)}
            title={AGENT_FORMAT_INFO[format].label}
            extension={AGENT_FORMAT_INFO[format].extension}
            note={AGENT_FORMAT_INFO[format].description}
          />
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function FormatItem({
  href,
  format,
  title = format ? FORMAT_LABELS[format] : "",
  extension = format ? FORMAT_EXTENSIONS[format] : "",
  note,
  isDefault,
}: {
  href: string;
  format?: PlaybookFormat;
  title?: string;
  extension?: string;
  note: string;
  isDefault?: boolean;
}) {
  return (
    <DropdownMenuItem asChild>
      <a href={href} download className="items-start">
        <FileDown aria-hidden className="mt-0.5" />
        <span className="flex-1">
          {title}
          <span className="ml-1.5 text-xs text-ink-faint">{extension}</span>
          {note ? <span className="block text-xs text-ink-faint">{note}</span> : null}
        </span>
        {isDefault ? <span className="rounded bg-accent-soft px-1.5 py-0.5 text-[11px] font-medium text-accent-ink">default</span> : null}
      </a>
    </DropdownMenuItem>
  );
}
