"use client";
// One select of a list's filter bar, bound to one key of the filters the URL holds (useUrlFilters):
// "Status: Any | Running | …", where Any clears the filter. The runs, traces and experiments lists use it.
import { FilterSelect, type SelectOption } from "./select";

/** Two side by side on a phone, 11rem each from sm up. */
const HALF_ROW = "w-[calc(50%-0.25rem)] sm:w-44";

export function UrlFilterSelect<K extends string, T extends string>({
  filters,
  update,
  name,
  label,
  prefix = label,
  className = HALF_ROW,
  options,
}: {
  filters: Record<NoInfer<K>, T | null>;
  update: (patch: Partial<Record<NoInfer<K>, NoInfer<T> | null>>) => void;
  /** The filter's key in `filters`, e.g. "status". */
  name: K;
  /** The accessible name, and the muted word before the value unless `prefix` says otherwise. */
  label: string;
  prefix?: string;
  className?: string;
  options: readonly SelectOption<T>[];
}) {
  return (
    <FilterSelect<T>
      label={label}
      prefix={prefix}
      className={className}
      value={filters[name]}
      // A computed key types as any string; it is `name`, so the patch sets just this filter.
      onValueChange={(value) => update({ [name]: value } as Partial<Record<K, T | null>>)}
      any={{ label: "Any" }}
      options={options}
    />
  );
}
