"use client";
// The playbook page body. Reads the playbook (hydrated from the server), owns the URL filter
// state once, and hands it to the summary, toolbar, sidebar, list and detail sheet.
import { useSuspenseQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { BulletList, useBulletPages } from "./bullet-list";
import { BulletSheet } from "./bullet-sheet";
import { BulletToolbar } from "./bullet-toolbar";
import { PlaybookHeader } from "./playbook-header";
import { SectionSidebar } from "./section-sidebar";
import { SummaryStrip } from "./summary-strip";
import { useBulletFilters } from "./use-bullet-filters";

export function PlaybookView({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  const api = useBulletFilters();
  const pages = useBulletPages(playbook.id, api);
  const matching = pages.data?.pages[0]?.total ?? null;

  return (
    <>
      <PlaybookHeader playbook={playbook} />
      <SummaryStrip playbook={playbook} api={api} />
      <div className="mt-6 grid grid-cols-1 gap-8 lg:grid-cols-[15rem_minmax(0,1fr)]">
        <SectionSidebar playbook={playbook} api={api} />
        <div className="min-w-0">
          <BulletToolbar playbook={playbook} api={api} matching={matching} loading={pages.isFetching} />
          <div className="pt-4 pb-16">
            <BulletList playbook={playbook} api={api} query={pages} />
          </div>
        </div>
      </div>
      <BulletSheet playbookId={playbook.id} externalId={api.bulletId} onClose={api.closeBullet} />
    </>
  );
}
