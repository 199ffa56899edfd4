// How the server's messages write numbers: counts with thousands separators and the nouns they
// count, and durations. Always en-US, so the server's HTML and the browser's render spell a number
// the same way (10.000 for 10,000 would break hydration). Pure, so every server folder and the UI
// (components/ui/format.ts) use it.

const NUMBER = new Intl.NumberFormat("en-US");

/** 1,204: a whole number as a person reads it. */
export function formatNumber(value: number): string {
  return NUMBER.format(value);
}

/** The noun alone for a count ("bullet", "bullets"), where the count stands apart from it. */
export function pluralWord(count: number, one: string, many = `${one}s`): string {
  return count === 1 ? one : many;
}

/** "1 operation", "1,204 bullets" (pass both forms when adding an s is not enough). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${pluralWord(count, one, many)}`;
}

/** "3 bullets added, 1 section renamed": the counts that are not 0, in the order given. */
export function countsInWords(counts: readonly (readonly [count: number, one: string, many: string])[]): string {
  return counts
    .filter(([count]) => count !== 0)
    .map(([count, one, many]) => plural(count, one, many))
    .join(", ");
}

/**
 * "840 ms", "42 s", "3 min": a wait or a time limit as a person reads it. Rounded up past a second,
 * so a wait is never said to be shorter than it is.
 */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = Math.ceil(ms / 1_000);
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}

const BYTE_UNITS = [
  [1e9, "gigabyte"],
  [1e6, "megabyte"],
  [1e3, "kilobyte"],
] as const;

/** "812 B", "4.2 kB", "13 GB": decimal (SI) units, as disks are sold and measured. */
export function formatBytes(bytes: number): string {
  for (const [size, unit] of BYTE_UNITS) {
    if (bytes >= size) {
      const value = bytes / size;
      return new Intl.NumberFormat("en-US", {
        style: "unit",
        unit,
        unitDisplay: "short",
        maximumFractionDigits: value < 10 ? 1 : 0,
      }).format(value);
    }
  }
  return `${formatNumber(Math.round(bytes))} B`;
}
