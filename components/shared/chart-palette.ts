// Colours and words of the Evolution charts, in one place so a series looks and reads the same in
// every chart, its legend, its tooltip and its table. Hues pair with text labels everywhere: colour
// is never the only cue.
import type { DeltaOperationType } from "@/server/deltas/schemas";
import type { LlmRole, VersionOrigin } from "@/server/metrics/schemas";
import { OPERATION_LABELS, ORIGIN_META } from "./delta-labels";

export const CHART_COLORS = {
  rate: "#4f46e5",
  band: "#a5b4fc",
  traces: "#cbd5e1",
  success: "#059669",
  failure: "#e11d48",
  unknown: "#94a3b8",
  helpful: "#059669",
  harmful: "#e11d48",
  neutral: "#94a3b8",
  score: "#4f46e5",
  tokens: "#0d9488",
  budget: "#b45309",
  marker: "#7c3aed",
  grid: "#e4e4e9",
  axis: "#6b6b78",
} as const;

/** Series colours in order, for variants and sections: distinct, and readable on white. */
export const SERIES_COLORS = [
  "#4f46e5",
  "#d97706",
  "#0d9488",
  "#db2777",
  "#2563eb",
  "#65a30d",
  "#9333ea",
  "#dc2626",
  "#0891b2",
  "#78716c",
] as const;

export function seriesColor(index: number): string {
  return SERIES_COLORS[index % SERIES_COLORS.length]!;
}

export const OPERATION_COLORS: Record<DeltaOperationType, string> = {
  add: "#059669",
  update: "#2563eb",
  remove: "#e11d48",
  restore: "#0d9488",
  merge: "#9333ea",
  tag: "#94a3b8",
  pin: "#ca8a04",
  unpin: "#a8a29e",
  add_section: "#65a30d",
  rename_section: "#d97706",
  move_section: "#78716c",
  remove_section: "#be123c",
};

export const ORIGIN_COLORS: Record<VersionOrigin, string> = {
  person: "#2563eb",
  reflector: "#4f46e5",
  curator: "#9333ea",
  pruning: "#d97706",
  import: "#78716c",
  rollback: "#0d9488",
  agent: "#0891b2",
  settings: "#a8a29e",
};

export const ROLE_COLORS: Record<LlmRole, string> = { reflector: "#4f46e5", curator: "#9333ea", agent: "#0d9488" };

export const ROLE_LABELS: Record<LlmRole, string> = { reflector: "Reflector", curator: "Curator", agent: "Agent" };

export const VERSION_ORIGIN_LABELS: Record<VersionOrigin, string> = {
  person: ORIGIN_META.person.label,
  reflector: ORIGIN_META.reflector.label,
  curator: ORIGIN_META.curator.label,
  pruning: ORIGIN_META.pruning.label,
  import: ORIGIN_META.import.label,
  rollback: ORIGIN_META.rollback.label,
  agent: ORIGIN_META.agent.label,
  settings: "Settings",
};

export { OPERATION_LABELS };
