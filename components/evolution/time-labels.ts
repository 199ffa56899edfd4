// How a UTC bucket reads in the viewer's time zone. Pure (the zone is a parameter), so the server
// render can say "UTC" and the browser its own zone, and tests can pin one.
import { BUCKET_MS, type Bucket } from "./range";

/** The zone the server renders in: before hydration nobody knows the reader's. */
export const SERVER_TIME_ZONE = "UTC";

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${timeZone}|${JSON.stringify(options)}`;
  let format = formatters.get(key);
  if (!format) {
    // en-US spelling everywhere (as components/ui/format.ts does), only the zone is the reader's.
    format = new Intl.DateTimeFormat("en-US", { timeZone, ...options });
    formatters.set(key, format);
  }
  return format;
}

const DATE: Intl.DateTimeFormatOptions = { month: "short", day: "numeric" };
const DATE_YEAR: Intl.DateTimeFormatOptions = { year: "numeric", month: "short", day: "numeric" };
const DATE_TIME: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
};
const TIME: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };

/**
 * A short axis tick. Hours: "Nov 1, 09:00" in the reader's zone. Days and weeks: the date of the
 * bucket's middle in the reader's zone, which is the bucket's UTC date for any zone within ±12 h.
 */
export function tickLabel(startIso: string, bucket: Bucket, timeZone: string): string {
  const start = Date.parse(startIso);
  if (bucket === "hour") return formatter(timeZone, { ...DATE, ...TIME }).format(start);
  return formatter(timeZone, DATE).format(start + BUCKET_MS[bucket] / 2);
}

/** The exact span of a bucket in the reader's zone: "Nov 1, 2026, 01:00 – Nov 2, 2026, 01:00". */
export function bucketSpanLabel(startIso: string, bucket: Bucket, timeZone: string): string {
  const start = Date.parse(startIso);
  const end = start + BUCKET_MS[bucket];
  const format = formatter(timeZone, DATE_TIME);
  return `${format.format(start)} – ${format.format(end)}`;
}

/** One cell of a "Show data" table: the bucket's start in the reader's zone. */
export function bucketStartLabel(startIso: string, bucket: Bucket, timeZone: string): string {
  const start = Date.parse(startIso);
  if (bucket === "hour") return formatter(timeZone, DATE_TIME).format(start);
  // A day or week that starts at the reader's midnight needs no time; elsewhere the time says
  // where the UTC bucket starts for them.
  const time = formatter(timeZone, TIME).format(start);
  const date = formatter(timeZone, DATE_YEAR).format(start);
  const label = time === "00:00" ? date : `${date}, ${time}`;
  return bucket === "week" ? `Week of ${label}` : label;
}

/** An instant in the reader's zone: "Nov 1, 2026, 09:30". */
export function instantLabel(iso: string, timeZone: string): string {
  return formatter(timeZone, DATE_TIME).format(Date.parse(iso));
}

/** A range "Oct 3, 2026 – Nov 2, 2026" (the end exclusive, so it shows the last instant's day). */
export function rangeLabel(fromIso: string, toIso: string, timeZone: string): string {
  const format = formatter(timeZone, DATE_YEAR);
  return `${format.format(Date.parse(fromIso))} – ${format.format(Date.parse(toIso) - 1)}`;
}

/** The reader's zone, or UTC where none can be read. */
export function viewerTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || SERVER_TIME_ZONE;
  } catch {
    return SERVER_TIME_ZONE;
  }
}

/** A value for <input type="datetime-local"> in `timeZone`: "2026-11-01T09:30". */
export function toLocalInput(iso: string, timeZone: string): string {
  const parts = formatter(timeZone, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(Date.parse(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "00";
  return `${part("year")}-${part("month")}-${part("day")}T${part("hour")}:${part("minute")}`;
}

/**
 * The instant a datetime-local value names in `timeZone` (null for a malformed value). The zone's
 * offset is read at that wall time, so daylight-saving changes land right.
 */
export function fromLocalInput(value: string, timeZone: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi] = match.map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  if (Number.isNaN(wall)) return null;
  // Guess with the offset at the wall time read as UTC, then correct once with the offset there.
  let guess = wall - offsetAt(wall, timeZone);
  guess = wall - offsetAt(guess, timeZone);
  return guess;
}

/** The zone's offset from UTC at `time`, in ms (positive east of Greenwich). */
function offsetAt(time: number, timeZone: string): number {
  const wall = toLocalInput(new Date(time).toISOString(), timeZone);
  const [date, clock] = wall.split("T") as [string, string];
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  const [h, mi] = clock.split(":").map(Number) as [number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi);
  return asUtc - Math.floor(time / 60_000) * 60_000;
}
