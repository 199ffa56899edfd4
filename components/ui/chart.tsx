// Chart pieces that know nothing of time or domain, shared by the Evolution tab and the experiment
// pages: a colour swatch, a legend that names every colour, and a chart's empty state.
import type { ReactNode } from "react";

export function Swatch({ color, dashed }: { color: string; dashed?: boolean }) {
  return (
    <span
      aria-hidden
      className="inline-block h-2.5 w-2.5 shrink-0 rounded-sm"
      style={dashed ? { border: `1.5px dashed ${color}` } : { backgroundColor: color }}
    />
  );
}

/** A legend as HTML under the chart: readable, wraps on phones, and no colour without its name. */
export function Legend({ items }: { items: { label: string; color: string; dashed?: boolean }[] }) {
  if (items.length === 0) return null;
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 px-2 pt-2 text-xs text-ink-muted">
      {items.map((item) => (
        <li key={item.label} className="flex items-center gap-1.5">
          <Swatch color={item.color} dashed={item.dashed} />
          {item.label}
        </li>
      ))}
    </ul>
  );
}

/** What a chart without data says instead of an empty frame: what will appear, and how to get it. */
export function ChartEmpty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex min-h-40 flex-col items-center justify-center rounded-lg border border-dashed border-line-strong bg-subtle/40 px-6 py-8 text-center">
      <p className="text-sm font-medium text-ink">{title}</p>
      {children ? <div className="mt-1 max-w-md text-xs leading-relaxed text-ink-muted">{children}</div> : null}
    </div>
  );
}
