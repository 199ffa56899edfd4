"use client";
// What changed between two versions, section by section: added, archived, edited (word diff),
// moved in from another section, merged, restored, counter changes, pins; section renames and moves.
// Each change says what it is in words; the colours only repeat it.
import { ArrowRight } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { TextDiff } from "@/components/ui/text-diff";
import { formatNumber, plural } from "@/components/ui/format";
import type { BulletChanges, CounterChange, SectionDiff, VersionDiff } from "@/server/history/schemas";

/** Past this many changes of one kind in one section, the rest wait behind "Show all". */
const SHOWN = 12;

const TOTALS: { key: keyof VersionDiff["totals"]; one: string; many: string; tone: BadgeTone }[] = [
  { key: "added", one: "added", many: "added", tone: "green" },
  { key: "edited", one: "edited", many: "edited", tone: "blue" },
  { key: "moved", one: "moved", many: "moved", tone: "accent" },
  { key: "merged", one: "merged", many: "merged", tone: "accent" },
  { key: "removed", one: "archived", many: "archived", tone: "red" },
  { key: "restored", one: "restored", many: "restored", tone: "green" },
  { key: "counters", one: "counter change", many: "counter changes", tone: "neutral" },
  { key: "pinned", one: "pinned", many: "pinned", tone: "amber" },
  { key: "unpinned", one: "unpinned", many: "unpinned", tone: "neutral" },
  { key: "sectionsAdded", one: "section added", many: "sections added", tone: "green" },
  { key: "sectionsRenamed", one: "section renamed", many: "sections renamed", tone: "blue" },
  { key: "sectionsMoved", one: "section moved", many: "sections moved", tone: "accent" },
  { key: "sectionsRemoved", one: "section removed", many: "sections removed", tone: "red" },
];

export function DiffTotals({ diff }: { diff: VersionDiff }) {
  const shown = TOTALS.filter(({ key }) => diff.totals[key] > 0);
  if (shown.length === 0) return null;
  return (
    <ul aria-label="Totals" className="flex flex-wrap gap-1.5">
      {shown.map(({ key, one, many, tone }) => (
        <li key={key}>
          <Badge tone={tone} className="tabular-nums">
            {plural(diff.totals[key], one, many)}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

function hasChanges(section: SectionDiff): boolean {
  return (
    section.status !== "kept" ||
    section.previousName !== null ||
    section.previousSlug !== null ||
    section.moved ||
    Object.values(section.bullets).some((list: unknown[]) => list.length > 0)
  );
}

export function VersionDiffView({ diff }: { diff: VersionDiff }) {
  const sections = diff.sections.filter(hasChanges);
  if (diff.empty || sections.length === 0) {
    return (
      <p className="rounded-lg border border-dashed border-line-strong px-4 py-8 text-center text-sm text-ink-muted">
        No bullet or section changed between v{diff.from} and v{diff.to}
        {diff.from + 1 === diff.to ? " (a settings change, or an edit that changed nothing)." : "."}
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-4">
      {sections.map((section) => (
        <SectionChanges key={section.id} section={section} />
      ))}
    </div>
  );
}

function SectionChanges({ section }: { section: SectionDiff }) {
  const { bullets } = section;
  return (
    <section aria-label={`Section ${section.name}`} className="overflow-hidden rounded-lg border border-line bg-surface">
      <header className="flex flex-wrap items-center gap-2 border-b border-line bg-subtle/50 px-4 py-2.5">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-ink-muted">{section.name}</h3>
        {section.status === "added" ? <Badge tone="green">New section</Badge> : null}
        {section.status === "removed" ? <Badge tone="red">Section removed</Badge> : null}
        {section.previousName !== null ? <Badge tone="blue">Renamed from “{section.previousName}”</Badge> : null}
        {section.moved ? <Badge tone="accent">Moved in the section order</Badge> : null}
      </header>
      <div className="divide-y divide-line">
        <Group label="Added" count={bullets.added.length}>
          {(limit) =>
            bullets.added.slice(0, limit).map((bullet) => (
              <Change key={bullet.externalId} id={bullet.externalId} kind="added">
                <ins className="whitespace-pre-wrap break-words no-underline">{bullet.content}</ins>
              </Change>
            ))
          }
        </Group>
        <Group label="Edited" count={bullets.edited.length}>
          {(limit) =>
            bullets.edited.slice(0, limit).map((edit) => (
              <Change key={edit.id} id={edit.id} kind="edited">
                <TextDiff segments={edit.segments} />
              </Change>
            ))
          }
        </Group>
        <Group label="Moved here" count={bullets.moved.length}>
          {(limit) =>
            bullets.moved.slice(0, limit).map((move) => (
              <Change key={move.bullet.externalId} id={move.bullet.externalId} kind="moved">
                <p className="mb-1 flex flex-wrap items-center gap-1 text-xs text-ink-muted">
                  {move.fromSectionName ?? "another section"} <ArrowRight aria-label="to" className="size-3" />
                  <span className="font-medium text-ink">{section.name}</span>
                </p>
                <Clamped text={move.bullet.content} />
              </Change>
            ))
          }
        </Group>
        <Group label="Merged" count={bullets.merged.length}>
          {(limit) =>
            bullets.merged.slice(0, limit).map((merge) => (
              <Change key={merge.bullet.externalId} id={merge.bullet.externalId} kind="merged">
                <p className="mb-1 text-xs text-ink-muted">
                  Merged into <span className="font-mono font-medium text-ink">[{merge.into}]</span>, which survives
                </p>
                <Clamped text={merge.bullet.content} />
              </Change>
            ))
          }
        </Group>
        <Group label="Archived" count={bullets.removed.length}>
          {(limit) =>
            bullets.removed.slice(0, limit).map((removal) => (
              <Change key={removal.bullet.externalId} id={removal.bullet.externalId} kind="removed">
                <p className="mb-1 text-xs text-ink-muted">{removal.reason ? `Reason: ${removal.reason}` : "Removed from the playbook"}</p>
                <del className="block text-ink-muted no-underline">
                  <Clamped text={removal.bullet.content} />
                </del>
              </Change>
            ))
          }
        </Group>
        <Group label="Restored" count={bullets.restored.length}>
          {(limit) =>
            bullets.restored.slice(0, limit).map((bullet) => (
              <Change key={bullet.externalId} id={bullet.externalId} kind="restored">
                <Clamped text={bullet.content} />
              </Change>
            ))
          }
        </Group>
        <Group label="Pinned" count={bullets.pinned.length}>
          {(limit) =>
            bullets.pinned.slice(0, limit).map((bullet) => (
              <Change key={bullet.externalId} id={bullet.externalId} kind="pinned">
                <Clamped text={bullet.content} />
              </Change>
            ))
          }
        </Group>
        <Group label="Unpinned" count={bullets.unpinned.length}>
          {(limit) =>
            bullets.unpinned.slice(0, limit).map((bullet) => (
              <Change key={bullet.externalId} id={bullet.externalId} kind="unpinned">
                <Clamped text={bullet.content} />
              </Change>
            ))
          }
        </Group>
        <Group label="Counters" count={bullets.counters.length}>
          {(limit) =>
            bullets.counters.slice(0, limit).map((change) => (
              <Change key={change.id} id={change.id} kind="counters">
                <CounterDeltas change={change} />
              </Change>
            ))
          }
        </Group>
      </div>
    </section>
  );
}

type ChangeKind = keyof BulletChanges;

const KIND_STYLE: Record<ChangeKind, { bar: string; label: string }> = {
  added: { bar: "bg-emerald-500", label: "Added" },
  edited: { bar: "bg-sky-500", label: "Edited" },
  moved: { bar: "bg-indigo-400", label: "Moved" },
  merged: { bar: "bg-indigo-400", label: "Merged" },
  removed: { bar: "bg-rose-500", label: "Archived" },
  restored: { bar: "bg-emerald-500", label: "Restored" },
  counters: { bar: "bg-zinc-400", label: "Counters" },
  pinned: { bar: "bg-amber-500", label: "Pinned" },
  unpinned: { bar: "bg-zinc-400", label: "Unpinned" },
};

function Group({ label, count, children }: { label: string; count: number; children: (limit: number) => ReactNode }) {
  const [all, setAll] = useState(false);
  if (count === 0) return null;
  return (
    <div className="px-4 py-3">
      <h4 className="mb-2 text-xs font-medium text-ink-faint">
        {label} <span className="tabular-nums">({formatNumber(count)})</span>
      </h4>
      <ul className="flex flex-col gap-2.5">{children(all ? count : SHOWN)}</ul>
      {count > SHOWN && !all ? (
        <Button size="sm" variant="ghost" className="mt-2" onClick={() => setAll(true)}>
          Show all {formatNumber(count)}
        </Button>
      ) : null}
    </div>
  );
}

function Change({ id, kind, children }: { id: string; kind: ChangeKind; children: ReactNode }) {
  const style = KIND_STYLE[kind];
  return (
    <li className="flex gap-3">
      <span aria-hidden className={cn("w-0.5 shrink-0 rounded-full", style.bar)} />
      <div className="min-w-0 flex-1 text-sm leading-relaxed text-ink">
        <p className="mb-0.5 font-mono text-xs text-ink-faint">
          <span className="sr-only">{style.label}: </span>[{id}]
        </p>
        {children}
      </div>
    </li>
  );
}

function Clamped({ text }: { text: string }) {
  return <span className="line-clamp-3 whitespace-pre-wrap break-words">{text}</span>;
}

function CounterDeltas({ change }: { change: CounterChange }) {
  const parts = (["helpful", "harmful", "neutral"] as const).filter((key) => change[key] !== 0);
  return (
    <p className="flex flex-wrap gap-x-3 text-[13px] tabular-nums">
      {parts.map((key) => (
        <span key={key}>
          {key}{" "}
          <span className={cn("font-medium", change[key] > 0 ? "text-emerald-700" : "text-rose-700")}>
            {change[key] > 0 ? `+${change[key]}` : `−${Math.abs(change[key])}`}
          </span>
        </span>
      ))}
    </p>
  );
}
