"use client";
// Sections in playbook order with their active counts (empty ones too), each with a small menu to
// manage it. Wide screens only; on narrow ones the toolbar's section select and the section rows
// of the list do the same jobs.
import { Plus } from "lucide-react";
import type { ReactNode } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import { useCan } from "@/components/auth/session-context";
import { BreakableName } from "@/components/ui/breakable-name";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import type { PlaybookDetail } from "@/server/playbooks/schemas";
import { SectionActionsMenu, type SectionActions } from "./section-actions";
import type { BulletFiltersApi } from "./use-bullet-filters";

export function SectionSidebar({ playbook, api, actions }: { playbook: PlaybookDetail; api: BulletFiltersApi; actions: SectionActions }) {
  const selected = api.filters.sectionId;
  const canEdit = useCan("bullet.edit");
  const sections = [...playbook.sections].sort((a, b) => a.position - b.position);
  return (
    <nav aria-label="Sections" className="sticky top-[4.5rem] hidden max-h-[calc(100dvh-5.5rem)] self-start overflow-y-auto pb-6 lg:block">
      <h2 className="px-2.5 pb-2 text-xs font-semibold uppercase tracking-wide text-ink-faint">Sections</h2>
      <ul className="flex flex-col gap-px">
        <li>
          <SidebarItem
            label="All sections"
            count={playbook.summary.active}
            pressed={selected === null}
            onClick={() => api.update({ sectionId: null })}
          />
        </li>
        {sections.map((section) => (
          <li key={section.id}>
            <SidebarItem
              label={section.name}
              count={section.bulletCount}
              pressed={selected === section.id}
              onClick={() => api.update({ sectionId: selected === section.id ? null : section.id })}
              menu={
                canEdit ? (
                  <SectionActionsMenu
                    playbook={playbook}
                    section={section}
                    actions={actions}
                    // Out of the way until the row is pointed at or reached by keyboard.
                    className="opacity-0 group-hover:opacity-100 focus-visible:opacity-100 data-[state=open]:opacity-100"
                  />
                ) : null
              }
            />
          </li>
        ))}
      </ul>
      <RoleGate action="bullet.edit">
        <Button
          size="sm"
          variant="ghost"
          className="mt-2 w-full justify-start text-ink-muted"
          onClick={() => actions.name({ kind: "add" })}
        >
          <Plus aria-hidden /> Add section
        </Button>
      </RoleGate>
    </nav>
  );
}

function SidebarItem({
  label,
  count,
  pressed,
  onClick,
  menu,
}: {
  label: string;
  count: number;
  pressed: boolean;
  onClick: () => void;
  menu?: ReactNode;
}) {
  const button = (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      title={label}
      className={cn(
        "flex w-full items-start gap-2 rounded-md px-2.5 py-1.5 text-left text-[13px] leading-snug transition-colors",
        pressed ? "bg-accent-soft font-medium text-accent-ink" : "text-ink-muted hover:bg-subtle hover:text-ink",
      )}
    >
      <span className="min-w-0 flex-1 break-normal">
        <BreakableName text={label} />
      </span>
      <span
        className={cn(
          "shrink-0 tabular-nums text-xs leading-5",
          pressed ? "text-accent-ink" : "text-ink-faint",
          count === 0 && "opacity-70",
        )}
      >
        {count}
      </span>
    </button>
  );
  if (!menu) return <div className="pr-[30px]">{button}</div>;
  return (
    <div className="group flex items-start gap-0.5">
      <div className="min-w-0 flex-1">{button}</div>
      {menu}
    </div>
  );
}
