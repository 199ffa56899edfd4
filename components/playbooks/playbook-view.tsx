"use client";
// The bullets tab of a playbook. Reads the playbook (hydrated from the server), owns the URL filter
// state once, and hands it to the summary, toolbar, sidebar, list and detail sheet; the dialogs
// that add bullets and name sections open from any of them.
import { useSuspenseQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useState } from "react";
import { useCan } from "@/components/auth/session-context";
import { Button } from "@/components/ui/button";
import { useTRPC } from "@/components/trpc/client";
import type { SectionSummary } from "@/server/playbooks/schemas";
import { AddBulletDialog } from "./add-bullet-dialog";
import { BulletList, useBulletPages } from "./bullet-list";
import { BulletSheet } from "./bullet-sheet";
import { BulletToolbar } from "./bullet-toolbar";
import { SectionActionsMenu, SectionNameDialog, type SectionActions, type SectionNaming } from "./section-actions";
import { SectionSidebar } from "./section-sidebar";
import { SummaryStrip } from "./summary-strip";
import { useBulletFilters } from "./use-bullet-filters";

export function PlaybookView({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  const api = useBulletFilters();
  const pages = useBulletPages(playbook.id, api);
  const matching = pages.data?.pages[0]?.total ?? null;

  /** The add-bullet dialog: undefined closed, null open without a section chosen. */
  const [addingTo, setAddingTo] = useState<string | null | undefined>(undefined);
  const [naming, setNaming] = useState<SectionNaming | null>(null);
  const actions: SectionActions = { addBullet: setAddingTo, name: setNaming };

  // Repeated on every section, so left out rather than disabled for a role that cannot edit.
  const canEdit = useCan("bullet.edit");
  const sectionActions = (section: SectionSummary) =>
    canEdit ? (
      <>
        <Button
          size="sm"
          variant="ghost"
          className="h-7 px-2 text-ink-muted"
          onClick={() => setAddingTo(section.id)}
          aria-label={`Add a bullet to ${section.name}`}
        >
          <Plus aria-hidden /> <span className="hidden sm:inline">Add</span>
        </Button>
        <SectionActionsMenu playbook={playbook} section={section} actions={actions} />
      </>
    ) : null;

  return (
    <>
      <SummaryStrip playbook={playbook} api={api} />
      <div className="mt-6 grid grid-cols-1 gap-8 lg:grid-cols-[15rem_minmax(0,1fr)]">
        <SectionSidebar playbook={playbook} api={api} actions={actions} />
        <div className="min-w-0">
          <BulletToolbar
            playbook={playbook}
            api={api}
            matching={matching}
            loading={pages.isFetching}
            onAddBullet={() => setAddingTo(api.filters.sectionId)}
          />
          <div id="bullets" tabIndex={-1} className="pt-4 pb-16 focus:outline-none">
            <BulletList playbook={playbook} api={api} query={pages} sectionActions={sectionActions} />
          </div>
        </div>
      </div>
      <BulletSheet playbook={playbook} externalId={api.bulletId} onClose={api.closeBullet} />
      <AddBulletDialog playbook={playbook} sectionId={addingTo} onClose={() => setAddingTo(undefined)} onAdded={api.openBullet} />
      <SectionNameDialog playbook={playbook} naming={naming} onClose={() => setNaming(null)} />
    </>
  );
}
