// The trace page's account of redaction at ingestion: what kinds were replaced, how many, and in
// which fields. The originals were never stored, so this is all there is to show.
import { ShieldCheck } from "lucide-react";
import { DetailSection } from "@/components/ui/detail-parts";
import { plural } from "@/components/ui/format";
import type { TraceDetail } from "@/server/traces/schemas";
import { summarizeRedactions } from "@/components/shared/redaction-summary";
import { RedactionBadges } from "@/components/shared/redaction-badges";

export function RedactionSection({ trace }: { trace: Pick<TraceDetail, "redactions"> }) {
  const summary = summarizeRedactions(trace.redactions);
  if (!summary) return null;
  return (
    <DetailSection title="Redacted at ingestion" count={summary.total}>
      <div className="flex flex-col gap-3 text-sm">
        <p className="flex items-start gap-2 text-ink-muted">
          <ShieldCheck aria-hidden className="mt-0.5 size-4 shrink-0 text-emerald-700" />
          <span>
            {summary.total > 0
              ? `${plural(summary.total, "finding")} replaced before the trace was stored or sent to a model, each by its kind, e.g. [REDACTED:${summary.rows[0]?.kind ?? "secret"}]. The originals were not kept.`
              : "Nothing in the text was replaced."}
          </span>
        </p>
        <RedactionBadges rows={summary.rows} />
        {summary.fields.length > 0 ? (
          <div>
            <p className="text-xs font-medium text-ink-faint">In {summary.fields.length === 1 ? "field" : "fields"}</p>
            <ul className="mt-1 flex flex-wrap gap-1.5">
              {summary.fields.map((field) => (
                <li key={field} className="rounded bg-subtle px-1.5 py-0.5 font-mono text-xs text-ink-muted">
                  {field}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {summary.unitIdHashed ? (
          <p className="text-ink-muted">The unit id was an email address or phone number: it is stored as a keyed hash (hmac:…).</p>
        ) : null}
      </div>
    </DetailSection>
  );
}
