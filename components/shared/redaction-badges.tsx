// The kinds a redaction replaced, a badge each ("2 email addresses"): on a trace's page and in the
// settings' preview of what a pattern would replace.
import { Badge } from "@/components/ui/badge";
import type { RedactionRow } from "./redaction-summary";

export function RedactionBadges({ rows }: { rows: RedactionRow[] }) {
  if (rows.length === 0) return null;
  return (
    <ul className="flex flex-wrap gap-1.5">
      {rows.map((row) => (
        <li key={row.kind}>
          <Badge tone="amber">{row.label}</Badge>
        </li>
      ))}
    </ul>
  );
}
