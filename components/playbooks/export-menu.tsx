"use client";
// Export as plain download links to the export route: the browser streams the file itself, and
// the playbook's own format comes first because only it round-trips byte for byte.
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
import { PLAYBOOK_FORMATS, type PlaybookFormat } from "@/server/playbooks/schemas";
import { FORMAT_EXTENSIONS, FORMAT_LABELS } from "./labels";

export function exportHref(playbookId: string, format?: PlaybookFormat): string {
  const base = `/api/playbooks/${encodeURIComponent(playbookId)}/export`;
  return format ? `${base}?format=${format}` : base;
}

export function ExportMenu({ playbookId, sourceFormat }: { playbookId: string; sourceFormat: PlaybookFormat }) {
  const others = PLAYBOOK_FORMATS.filter((f) => f !== sourceFormat);
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="secondary">
          <Download aria-hidden /> Export <ChevronDown aria-hidden className="-mr-1 text-ink-faint" />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="w-80">
        <DropdownMenuLabel>Download as</DropdownMenuLabel>
        <FormatItem href={exportHref(playbookId)} format={sourceFormat} isDefault />
        <DropdownMenuSeparator />
        {others.map((format) => (
          <FormatItem key={format} href={exportHref(playbookId, format)} format={format} />
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function FormatItem({ href, format, isDefault }: { href: string; format: PlaybookFormat; isDefault?: boolean }) {
  return (
    <DropdownMenuItem asChild>
      <a href={href} download>
        <FileDown aria-hidden />
        <span className="flex-1">
          {FORMAT_LABELS[format]}
          <span className="ml-1.5 text-xs text-ink-faint">{FORMAT_EXTENSIONS[format]}</span>
        </span>
        {isDefault ? (
          <span className="rounded bg-accent-soft px-1.5 py-0.5 text-[11px] font-medium text-accent-ink">default</span>
        ) : null}
      </a>
    </DropdownMenuItem>
  );
}
