"use client";
// Sections in playbook order with their active counts (empty ones too). Wide screens only; on
// narrow ones the toolbar's section select does the same job.
import { cn } from "@/components/ui/cn";
import type { PlaybookDetail } from "@/server/playbooks/schemas";
import type { BulletFiltersApi } from "./use-bullet-filters";

export function SectionSidebar({ playbook, api }: { playbook: PlaybookDetail; api: BulletFiltersApi }) {
  const selected = api.filters.sectionId;
  const sections = [...playbook.sections].sort((a, b) => a.position - b.position);
  return (
    <nav
      aria-label="Sections"
      className="sticky top-[4.5rem] hidden max-h-[calc(100dvh-5.5rem)] self-start overflow-y-auto pb-6 lg:block"
    >
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
            />
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SidebarItem({
  label,
  count,
  pressed,
  onClick,
}: {
  label: string;
  count: number;
  pressed: boolean;
  onClick: () => void;
}) {
  return (
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
      <span className="min-w-0 flex-1 break-words">{label}</span>
      <span className={cn("shrink-0 tabular-nums text-xs leading-5", pressed ? "text-accent-ink" : "text-ink-faint", count === 0 && "opacity-70")}>
        {count}
      </span>
    </button>
  );
}
