// The trace explorer's filters live in the URL (?playbook=…&outcome=failure&from=2025-01-01…), so a
// filtered view can be shared. start/end narrow it to an exact span (a chart's bucket links here). The server page and the client list build the very same query input
// from them, or the prefetched cache entry would be missed.
import { TRACE_OUTCOMES, type ListTracesInput, type TraceOutcome, type TracePage } from "@/server/traces/schemas";
import { isUuid, oneOf } from "@/components/ui/search-params";

export const TRACE_PARAM = {
  playbook: "playbook",
  outcome: "outcome",
  from: "from",
  to: "to",
  reflected: "reflected",
  variant: "variant",
  search: "q",
  start: "start",
  end: "end",
} as const;

export type ReflectedFilter = "yes" | "no";

export interface TraceFilters {
  playbookId: string | null;
  outcome: TraceOutcome | null;
  /** YYYY-MM-DD, a UTC day: received on or after it. */
  from: string | null;
  /** YYYY-MM-DD, a UTC day: received on or before it (the whole day). */
  to: string | null;
  reflected: ReflectedFilter | null;
  variant: string;
  search: string;
  /** ISO instant: ran at or after it (an exact span, e.g. one bucket of the Evolution charts). */
  start: string | null;
  /** ISO instant: ran before it. */
  end: string | null;
}

export const EMPTY_TRACE_FILTERS: TraceFilters = {
  playbookId: null,
  outcome: null,
  from: null,
  to: null,
  reflected: null,
  variant: "",
  search: "",
  start: null,
  end: null,
};

export const TRACE_PAGE_SIZE = 50;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(value: string | null): string | null {
  if (!value || !DAY.test(value)) return null;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? null : value;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO instant with its zone, normalised to UTC; anything else is null. */
function parseInstant(value: string | null): string | null {
  if (!value || !INSTANT.test(value)) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** Unknown or malformed values are ignored, so a hand-edited link still opens. */
export function parseTraceFilters(params: URLSearchParams): TraceFilters {
  const playbook = params.get(TRACE_PARAM.playbook);
  const outcome = params.get(TRACE_PARAM.outcome);
  const reflected = params.get(TRACE_PARAM.reflected);
  return {
    playbookId: isUuid(playbook) ? playbook : null,
    outcome: oneOf(outcome, TRACE_OUTCOMES),
    from: parseDay(params.get(TRACE_PARAM.from)),
    to: parseDay(params.get(TRACE_PARAM.to)),
    reflected: reflected === "yes" || reflected === "no" ? reflected : null,
    variant: (params.get(TRACE_PARAM.variant) ?? "").trim().slice(0, 100),
    search: (params.get(TRACE_PARAM.search) ?? "").slice(0, 500),
    start: parseInstant(params.get(TRACE_PARAM.start)),
    end: parseInstant(params.get(TRACE_PARAM.end)),
  };
}

/** Writes filters into params, leaving empty ones out so URLs stay short. Other params are kept. */
export function writeTraceFilters(params: URLSearchParams, filters: TraceFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string | null) => (value ? next.set(key, value) : next.delete(key));
  set(TRACE_PARAM.playbook, filters.playbookId);
  set(TRACE_PARAM.outcome, filters.outcome);
  set(TRACE_PARAM.from, filters.from);
  set(TRACE_PARAM.to, filters.to);
  set(TRACE_PARAM.reflected, filters.reflected);
  set(TRACE_PARAM.variant, filters.variant.trim() || null);
  set(TRACE_PARAM.search, filters.search.trim() || null);
  set(TRACE_PARAM.start, filters.start);
  set(TRACE_PARAM.end, filters.end);
  return next;
}

export function hasTraceFilters(filters: TraceFilters): boolean {
  return Boolean(
    filters.playbookId ||
    filters.outcome ||
    filters.from ||
    filters.to ||
    filters.reflected ||
    filters.variant.trim() ||
    filters.search.trim() ||
    filters.start ||
    filters.end,
  );
}

export type TraceListQueryInput = Omit<ListTracesInput, "cursor">;

function nextDay(day: string): Date {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date;
}

/** Two optional bounds as one: `pick` chooses when both are set; null when neither is. */
function bound(a: Date | null, b: Date | null, pick: (x: number, y: number) => number): Date | null {
  if (a && b) return new Date(pick(a.getTime(), b.getTime()));
  return a ?? b;
}

/** The traces.list input for these filters, without the cursor (the infinite query adds it). */
export function traceListInput(filters: TraceFilters, limit = TRACE_PAGE_SIZE): TraceListQueryInput {
  const search = filters.search.trim();
  const variant = filters.variant.trim();
  // Days and an exact span both narrow the time: the later start and the earlier end win.
  const from = bound(
    filters.from ? new Date(`${filters.from}T00:00:00.000Z`) : null,
    filters.start ? new Date(filters.start) : null,
    Math.max,
  );
  const to = bound(filters.to ? nextDay(filters.to) : null, filters.end ? new Date(filters.end) : null, Math.min);
  return {
    ...(filters.playbookId ? { playbookId: filters.playbookId } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(filters.reflected ? { reflected: filters.reflected === "yes" } : {}),
    ...(variant ? { variant } : {}),
    ...(search ? { search } : {}),
    limit,
  };
}

/** Paging of traces.list (a keyset cursor): shared by the server prefetch and the client query. */
export const TRACE_PAGES = {
  initialCursor: null,
  getNextPageParam: (page: TracePage) => page.nextCursor ?? undefined,
} as const;

/** A link to the explorer with some filters set, e.g. one playbook's traces. */
export function tracesHref(filters: Partial<TraceFilters> = {}): string {
  const query = writeTraceFilters(new URLSearchParams(), { ...EMPTY_TRACE_FILTERS, ...filters }).toString();
  return `/traces${query ? `?${query}` : ""}`;
}
