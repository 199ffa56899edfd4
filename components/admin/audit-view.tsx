"use client";
// /audit: every recorded action, newest first, filtered by who, action, playbook and dates (kept in
// the URL), with the same selection as a CSV download.
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { Download, FilterX, ScrollText } from "lucide-react";
import { useMemo } from "react";
import { PlaybookFilter } from "@/components/shared/playbook-filter";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button, buttonClass } from "@/components/ui/button";
import { DebouncedInput } from "@/components/ui/debounced-input";
import { EmptyState } from "@/components/ui/empty-state";
import { Input } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { ExactTime } from "@/components/ui/relative-time";
import { FilterSelect } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import { KNOWN_AUDIT_ACTIONS, type AuditEntryView } from "@/server/audit/schemas";
import { AUDIT_PAGES, auditCsvHref, auditListInput, hasAuditFilters, readAuditSearch, writeAuditSearch } from "./audit-url";
import { AdminTable } from "./admin-table";
import { AdminHeader } from "./settings-nav";

const ACTION_GROUPS = [...new Set(KNOWN_AUDIT_ACTIONS.map((action) => `${action.split(".")[0]}.`))];
const ACTION_OPTIONS = [
  ...ACTION_GROUPS.map((group) => ({ value: group, label: `${group}* (all)` })),
  ...KNOWN_AUDIT_ACTIONS.map((action) => ({ value: action, label: action })),
];

const KIND_TONE = { user: "neutral", apikey: "blue", system: "gray", local: "amber" } as const;

export function AuditView() {
  const trpc = useTRPC();
  const { filters: search, update, reset } = useUrlFilters(readAuditSearch, writeAuditSearch);
  const input = useMemo(() => auditListInput(search), [search]);
  const query = useInfiniteQuery({ ...trpc.audit.list.infiniteQueryOptions(input, AUDIT_PAGES), placeholderData: keepPreviousData });
  const entries = query.data?.pages.flatMap((page) => page.entries) ?? [];
  const actionOptions =
    search.action && !ACTION_OPTIONS.some((option) => option.value === search.action)
      ? [...ACTION_OPTIONS, { value: search.action, label: search.action }]
      : ACTION_OPTIONS;

  return (
    <div className="pb-16">
      <AdminHeader
        title="Audit log"
        description="Who did what, when and from where. Entries are never edited or deleted; their IP addresses are dropped after ACE_AUDIT_IP_DAYS (90 days by default)."
        actions={
          <a href={auditCsvHref(search)} download className={buttonClass("secondary")}>
            <Download aria-hidden /> Download CSV
          </a>
        }
      />
      <div className="flex flex-wrap items-center gap-2 border-b border-line pb-3">
        <DebouncedInput
          label="Who"
          placeholder="Who (email, key name)…"
          className="w-full sm:w-56"
          value={search.who}
          onCommit={(who) => update({ who })}
        />
        <FilterSelect
          label="Action"
          prefix="Action"
          className="w-full sm:w-60"
          value={search.action || null}
          onValueChange={(action) => update({ action: action ?? "" })}
          any={{ label: "Any" }}
          options={actionOptions}
        />
        <PlaybookFilter value={search.playbook || null} onChange={(playbook) => update({ playbook: playbook ?? "" })} />
        <label className="flex items-center gap-1.5 text-xs text-ink-muted">
          From
          <Input type="date" className="w-40" value={search.from} onChange={(event) => update({ from: event.target.value }, "replace")} />
        </label>
        <label className="flex items-center gap-1.5 text-xs text-ink-muted">
          To
          <Input type="date" className="w-40" value={search.to} onChange={(event) => update({ to: event.target.value }, "replace")} />
        </label>
        {hasAuditFilters(search) ? (
          <Button size="sm" variant="ghost" onClick={reset}>
            <FilterX aria-hidden /> Reset
          </Button>
        ) : null}
      </div>
      <div className="pt-4">
        {query.isPending ? (
          <Skeleton className="h-64" />
        ) : query.isError ? (
          <LoadFailed what="audit entries" error={query.error} onRetry={() => void query.refetch()} />
        ) : entries.length === 0 ? (
          <EmptyState icon={<ScrollText />} title={hasAuditFilters(search) ? "No entries match" : "Nothing recorded yet"}>
            {hasAuditFilters(search)
              ? "Change or reset the filters."
              : "Sign-ins, account changes and API keys are recorded here as they happen."}
          </EmptyState>
        ) : (
          <>
            <AuditTable entries={entries} dimmed={query.isPlaceholderData} />
            {query.hasNextPage ? (
              <div className="mt-4 flex justify-center">
                <Button disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
                  {query.isFetchingNextPage ? "Loading…" : "Older entries"}
                </Button>
              </div>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}

function summary(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([key, inner]) => `${key}: ${typeof inner === "object" && inner !== null ? JSON.stringify(inner) : String(inner)}`)
    .join(", ");
}

function AuditTable({ entries, dimmed }: { entries: AuditEntryView[]; dimmed: boolean }) {
  return (
    <AdminTable label="Audit entries" columns={["When", "Who", "Action", "Target", "Change", "From"]} dimmed={dimmed}>
      {entries.map((entry) => (
        <tr key={entry.id} className="align-top">
          <td className="whitespace-nowrap px-4 py-2.5 text-xs text-ink-muted">
            <ExactTime date={entry.createdAt} />
          </td>
          <td className="px-4 py-2.5">
            <Badge tone={KIND_TONE[entry.actorKind]}>{entry.actorKind}</Badge> <span className="text-ink">{entry.actorName}</span>
          </td>
          <td className="whitespace-nowrap px-4 py-2.5 font-mono text-xs text-ink">{entry.action}</td>
          <td className="px-4 py-2.5 text-ink-muted">{entry.targetLabel ?? entry.targetId ?? ""}</td>
          <td className="max-w-md px-4 py-2.5 text-xs text-ink-muted">
            {entry.before !== null ? <span className="line-through decoration-ink-faint/60">{summary(entry.before)}</span> : null}
            {entry.before !== null && entry.after !== null ? " → " : null}
            {entry.after !== null ? <span>{summary(entry.after)}</span> : null}
          </td>
          <td
            className="whitespace-nowrap px-4 py-2.5 font-mono text-xs text-ink-faint"
            title={entry.requestId ? `request ${entry.requestId}` : undefined}
          >
            {entry.ip ?? ""}
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}
