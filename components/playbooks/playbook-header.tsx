import { ChevronRight, FileUp } from "lucide-react";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import type { PlaybookDetail } from "@/server/playbooks/schemas";
import { ExportMenu } from "./export-menu";
import { ImportDialog } from "./import-dialog";
import { FORMAT_LABELS } from "./labels";
import { RelativeTime } from "@/components/ui/relative-time";

export function PlaybookHeader({ playbook }: { playbook: PlaybookDetail }) {
  return (
    <header className="flex flex-col gap-4 pb-5 pt-6 md:flex-row md:items-start md:justify-between">
      <div className="min-w-0">
        <nav aria-label="Breadcrumb" className="mb-2 flex items-center gap-1 text-xs text-ink-faint">
          <Link href="/playbooks" className="rounded-sm hover:text-ink">
            Playbooks
          </Link>
          <ChevronRight aria-hidden className="size-3" />
          <span aria-current="page" className="truncate">
            {playbook.name}
          </span>
        </nav>
        <h1 className="text-2xl font-semibold tracking-tight break-words text-ink">{playbook.name}</h1>
        <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1.5 text-[13px] text-ink-muted">
          {playbook.agentLabel ? (
            <Badge tone="accent" title="Agent">
              {playbook.agentLabel}
            </Badge>
          ) : null}
          <span>
            Version <span className="font-medium tabular-nums text-ink">{playbook.version}</span>
          </span>
          <span aria-hidden className="text-line-strong">
            ·
          </span>
          <span>
            Source <span className="font-medium text-ink">{FORMAT_LABELS[playbook.sourceFormat]}</span>
          </span>
          <span aria-hidden className="text-line-strong">
            ·
          </span>
          <span>
            Updated <RelativeTime date={playbook.updatedAt} className="font-medium text-ink" />
          </span>
        </div>
        {playbook.description ? <p className="mt-3 max-w-3xl text-sm leading-relaxed text-ink-muted">{playbook.description}</p> : null}
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <ImportDialog
          presetPlaybookId={playbook.id}
          trigger={
            <Button variant="secondary">
              <FileUp aria-hidden /> Import into this playbook
            </Button>
          }
        />
        <ExportMenu playbookId={playbook.id} sourceFormat={playbook.sourceFormat} />
      </div>
    </header>
  );
}
