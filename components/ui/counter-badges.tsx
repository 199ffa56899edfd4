import { Badge } from "@/components/ui/badge";

interface Counters {
  helpful: number;
  harmful: number;
  neutral: number;
  countersKnown: boolean;
}

/**
 * helpful ✓ / harmful ✗ / neutral ○ as compact badges. A source without counters shows that in
 * words: zeros would claim the bullet was never useful, which nobody measured.
 */
export function CounterBadges({ helpful, harmful, neutral, countersKnown }: Counters) {
  if (!countersKnown) return <span className="text-xs text-ink-faint">no counters</span>;
  return (
    <span className="inline-flex items-center gap-1">
      <Badge tone="green" title={`${helpful} helpful`} className="tabular-nums">
        <span aria-hidden>✓ {helpful}</span>
        <span className="sr-only">{helpful} helpful</span>
      </Badge>
      <Badge tone="red" title={`${harmful} harmful`} className="tabular-nums">
        <span aria-hidden>✗ {harmful}</span>
        <span className="sr-only">{harmful} harmful</span>
      </Badge>
      <Badge tone="gray" title={`${neutral} neutral`} className="tabular-nums">
        <span aria-hidden>○ {neutral}</span>
        <span className="sr-only">{neutral} neutral</span>
      </Badge>
    </span>
  );
}
