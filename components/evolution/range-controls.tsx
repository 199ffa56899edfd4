"use client";
// The Evolution toolbar: range presets and a custom range, the bucket, the variant, and whether
// counter-only versions count. Everything it sets goes into the URL.
import { CalendarRange, ZoomOut } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { FilterSelect, Select } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { formatNumber } from "@/components/ui/format";
import { Segmented } from "./segmented";
import {
  BUCKETS,
  bucketCount,
  DEFAULT_PRESET,
  EARLIEST_TIME,
  MAX_POINTS,
  RANGE_PRESETS,
  type Bucket,
  type EvolutionFilters,
  type RangePreset,
  type ResolvedRange,
} from "./range";
import { fromLocalInput, toLocalInput } from "./time-labels";

export const PRESET_LABELS: Record<RangePreset, string> = { "24h": "24 h", "7d": "7 d", "30d": "30 d", "90d": "90 d", all: "All" };
const BUCKET_LABELS: Record<Bucket, string> = { hour: "Hour", day: "Day", week: "Week" };

type Update = (patch: Partial<EvolutionFilters>, mode?: "push" | "replace") => void;

export function RangeControls({
  filters,
  range,
  variants,
  timeZone,
  update,
  presets = RANGE_PRESETS,
  showVariant = true,
  showVersions = true,
}: {
  filters: EvolutionFilters;
  range: ResolvedRange;
  /** Variants one can filter to. */
  variants: readonly string[];
  timeZone: string;
  update: Update;
  presets?: readonly RangePreset[];
  showVariant?: boolean;
  showVersions?: boolean;
}) {
  const [customOpen, setCustomOpen] = useState(false);
  const custom = filters.preset === null;
  const span = { from: range.from.getTime(), to: range.to.getTime() };
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <Segmented<RangePreset | "custom">
          label="Range"
          value={custom ? "custom" : (filters.preset ?? DEFAULT_PRESET)}
          onChange={(value) => {
            if (value === "custom") setCustomOpen((open) => !open);
            else {
              setCustomOpen(false);
              update({ preset: value, from: null, to: null });
            }
          }}
          options={[
            ...presets.map((preset) => ({ value: preset, label: PRESET_LABELS[preset] })),
            { value: "custom" as const, label: "Custom" },
          ]}
        />
        {custom ? (
          <Button size="sm" variant="ghost" onClick={() => update({ preset: DEFAULT_PRESET, from: null, to: null })}>
            <ZoomOut aria-hidden /> Reset zoom
          </Button>
        ) : null}
        <Select<"auto" | Bucket>
          label="Bucket"
          prefix="Bucket"
          className="h-8 w-40 text-[13px]"
          value={filters.bucket ?? "auto"}
          onValueChange={(value) => update({ bucket: value === "auto" ? null : value })}
          options={[
            { value: "auto", label: `Auto (${BUCKET_LABELS[range.bucket].toLowerCase()})`, textValue: "Auto" },
            ...BUCKETS.map((bucket) => {
              const points = bucketCount(span.from, span.to, bucket);
              return {
                value: bucket,
                label: BUCKET_LABELS[bucket],
                hint: points > MAX_POINTS ? "too many points" : `${formatNumber(points)} points`,
              };
            }),
          ]}
        />
        {showVariant ? (
          <FilterSelect<string>
            label="Variant"
            prefix="Variant"
            className="h-8 w-40 text-[13px]"
            value={filters.variant || null}
            onValueChange={(variant) => update({ variant: variant ?? "" })}
            any={{ label: "All" }}
            options={[...new Set([...variants, ...(filters.variant ? [filters.variant] : [])])]
              .sort()
              .map((variant) => ({ value: variant, label: variant }))}
          />
        ) : null}
        {showVersions ? (
          <label className="ml-1 inline-flex items-center gap-2 text-[13px] text-ink-muted">
            <Switch checked={filters.allVersions} onCheckedChange={(allVersions) => update({ allVersions })} />
            Every version
            <span className="sr-only">(counter-only versions from reflections included)</span>
          </label>
        ) : null}
      </div>
      {customOpen ? (
        <CustomRangeForm
          key={`${span.from}-${span.to}`}
          from={range.from.toISOString()}
          to={range.to.toISOString()}
          timeZone={timeZone}
          onApply={(from, to) => {
            setCustomOpen(false);
            update({ preset: null, from: new Date(from).toISOString(), to: new Date(to).toISOString() });
          }}
          onCancel={() => setCustomOpen(false)}
        />
      ) : null}
    </div>
  );
}

function CustomRangeForm({
  from,
  to,
  timeZone,
  onApply,
  onCancel,
}: {
  from: string;
  to: string;
  timeZone: string;
  onApply: (from: number, to: number) => void;
  onCancel: () => void;
}) {
  const [start, setStart] = useState(() => toLocalInput(from, timeZone));
  const [end, setEnd] = useState(() => toLocalInput(to, timeZone));
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const a = fromLocalInput(start, timeZone);
    const b = fromLocalInput(end, timeZone);
    if (a === null || b === null) return setError("Give both a start and an end, date and time.");
    if (b <= a) return setError("The end must come after the start.");
    if (a < EARLIEST_TIME) return setError("Traces start in 2000 at the earliest.");
    onApply(a, b);
  }

  return (
    <form
      onSubmit={submit}
      aria-label="Custom range"
      className="flex flex-wrap items-end gap-2 rounded-lg border border-line bg-surface px-3 py-2.5"
    >
      <CalendarRange aria-hidden className="mb-2 size-4 text-ink-faint" />
      <LocalTimeField label="From" value={start} onChange={setStart} />
      <LocalTimeField label="To (not included)" value={end} onChange={setEnd} />
      <Button type="submit" size="sm" variant="primary">
        Apply
      </Button>
      <Button size="sm" variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
      <p className="basis-full text-xs text-ink-faint">
        {error ? (
          <span role="alert" className="text-danger">
            {error}
          </span>
        ) : (
          `Times in your time zone (${timeZone}).`
        )}
      </p>
    </form>
  );
}

/** A date and time in the reader's zone, labelled above the box. */
function LocalTimeField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <label className="flex flex-col gap-1 text-xs text-ink-muted">
      {label}
      <Input
        type="datetime-local"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className="h-8 w-52 text-[13px]"
        required
      />
    </label>
  );
}
