// What the trace page says about redaction: one row per kind, in words, and the fields it touched.
// Pure, so it is unit-tested apart from the component.
import { formatNumber, pluralWord } from "@/components/ui/format";
import type { TraceRedactions } from "@/server/traces/schemas";

const KIND_WORDS: Record<string, [one: string, many: string]> = {
  secret: ["secret", "secrets"],
  card: ["card number", "card numbers"],
  email: ["email address", "email addresses"],
  phone: ["phone number", "phone numbers"],
  iban: ["IBAN", "IBANs"],
  ssn: ["social security number", "social security numbers"],
};

export interface RedactionRow {
  kind: string;
  /** "2 email addresses", or "1 match of custom pattern ticket". */
  label: string;
  count: number;
}

export interface RedactionSummary {
  total: number;
  rows: RedactionRow[];
  /** task, reasoning, output, feedback.notes, metadata.user.email … in the order stored. */
  fields: string[];
  unitIdHashed: boolean;
}

/** Built-in kinds first in a fixed order, then custom patterns by name. */
export function summarizeRedactions(redactions: TraceRedactions | null): RedactionSummary | null {
  if (!redactions) return null;
  const order = Object.keys(KIND_WORDS);
  const rank = (kind: string) => (order.includes(kind) ? order.indexOf(kind) : order.length);
  const rows = Object.entries(redactions.counts)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([kind, count]): RedactionRow => {
      const words = KIND_WORDS[kind];
      const label = words
        ? `${formatNumber(count)} ${pluralWord(count, ...words)}`
        : `${formatNumber(count)} ${pluralWord(count, "match", "matches")} of custom pattern ${kind}`;
      return { kind, label, count };
    });
  return {
    total: rows.reduce((sum, row) => sum + row.count, 0),
    rows,
    fields: redactions.fields,
    unitIdHashed: redactions.unitIdHashed === true,
  };
}
