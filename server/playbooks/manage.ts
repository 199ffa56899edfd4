// Creating a playbook (empty with the ACE default sections, or from a parsed document), finding one,
// and its curation settings. Every write is one transaction that also records its PlaybookVersion.
import type { z } from "zod";
import type { PlaybookDocument, PlaybookFormat } from "@/server/ace/document";
import { redactionSettingsSchema, type RedactionSettings } from "@/server/ace/redaction/settings";
import { retentionSettingsSchema, type RetentionSettings } from "@/server/ace/retention/settings";
import type { VersionChange } from "@/server/ace/history";
import { DEFAULT_SECTIONS, highestIdNumber } from "@/server/ace/ids";
import { recordAudit, whoOf, type WhoOrName } from "@/server/audit/record";
import { Prisma, type Db, type DbOrTx, type Tx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import { forgetHead } from "@/server/context/heads";
import { recordVersion } from "@/server/history/record";
import { rowsFromDocument, sectionStateOf, toDbFormat } from "./mapping";
import * as repo from "./repository";
import {
  playbookSettingsSchema,
  type createPlaybookInput,
  type ImportResult,
  type PlaybookSettings,
  type updateSettingsInput,
  type UpdateSettingsResult,
} from "./schemas";

/** Imports of large playbooks on the embedded engine take seconds; the default 5 s would cut them off. */
export const WRITE_TRANSACTION = { maxWait: 10_000, timeout: 120_000 } as const;

/** Whether stored settings hold redaction settings of their own (else the studio default applies). */
export function hasOwnRedaction(storedSettings: unknown): boolean {
  return typeof storedSettings === "object" && storedSettings !== null && "redaction" in storedSettings;
}

// ---- Redaction: the playbook's own settings, else the studio default ----------------------------

const STUDIO_REDACTION_KEY = "traces.redactionDefault";

/** The studio default: what a playbook that never set its own redaction settings redacts. */
export async function readStudioRedaction(db: DbOrTx): Promise<RedactionSettings> {
  return redactionOf(await repo.readAppSetting(db, STUDIO_REDACTION_KEY));
}

function redactionOf(stored: unknown): RedactionSettings {
  const parsed = redactionSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : redactionSettingsSchema.parse({});
}

export async function writeStudioRedaction(db: Db, author: WhoOrName, settings: RedactionSettings): Promise<RedactionSettings> {
  await db.$transaction(async (tx) => {
    const before = await readStudioRedaction(tx);
    await repo.writeAppSetting(tx, STUDIO_REDACTION_KEY, settings);
    await recordAudit(tx, whoOf(author).audit, {
      action: "settings.update",
      target: { type: "studio", id: null, label: "studio redaction default" },
      before: { redaction: before },
      after: { redaction: settings },
    });
  });
  return settings;
}

// ---- Retention: the playbook's own days, else the studio default -----------------------------

/** Whether stored settings hold retention days of their own (else the studio default applies). */
export function hasOwnRetention(storedSettings: unknown): boolean {
  return typeof storedSettings === "object" && storedSettings !== null && "retention" in storedSettings;
}

const STUDIO_RETENTION_KEY = "retention.default";

/** The studio default: how long a playbook that never set its own retention keeps its rows. */
export async function readStudioRetention(db: DbOrTx): Promise<RetentionSettings> {
  return retentionOf(await repo.readAppSetting(db, STUDIO_RETENTION_KEY));
}

function retentionOf(stored: unknown): RetentionSettings {
  const parsed = retentionSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : retentionSettingsSchema.parse({});
}

export async function writeStudioRetention(db: Db, author: WhoOrName, settings: RetentionSettings): Promise<RetentionSettings> {
  await db.$transaction(async (tx) => {
    const before = await readStudioRetention(tx);
    await repo.writeAppSetting(tx, STUDIO_RETENTION_KEY, settings);
    await recordAudit(tx, whoOf(author).audit, {
      action: "settings.update",
      target: { type: "studio", id: null, label: "studio retention default" },
      before: { retention: before },
      after: { retention: settings },
    });
  });
  return settings;
}

/** Keys a playbook may leave to the studio default: stored only once the playbook sets its own. */
const STUDIO_DEFAULTED = ["redaction", "retention"] as const;

function withoutKeys(settings: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([key]) => !keys.includes(key)));
}

/** The app settings that hold the studio defaults a playbook's settings fall back to. */
export const STUDIO_DEFAULT_KEYS = [STUDIO_REDACTION_KEY, STUDIO_RETENTION_KEY] as const;

/** The settings that apply: the stored ones, with the studio defaults for what the playbook has none of its own. */
export async function effectiveSettings(db: DbOrTx, stored: unknown): Promise<PlaybookSettings> {
  // The studio's defaults the playbook does not override, in one statement.
  const studio = await repo.readAppSettings(db, [
    ...(hasOwnRedaction(stored) ? [] : [STUDIO_REDACTION_KEY]),
    ...(hasOwnRetention(stored) ? [] : [STUDIO_RETENTION_KEY]),
  ]);
  return settingsWithDefaults(stored, studio);
}

/** effectiveSettings with the studio's defaults read already (STUDIO_DEFAULT_KEYS, by key). */
export function settingsWithDefaults(stored: unknown, studio: ReadonlyMap<string, unknown>): PlaybookSettings {
  const settings = readSettings(stored);
  return {
    ...settings,
    redaction: hasOwnRedaction(stored) ? settings.redaction : redactionOf(studio.get(STUDIO_REDACTION_KEY)),
    retention: hasOwnRetention(stored) ? settings.retention : retentionOf(studio.get(STUDIO_RETENTION_KEY)),
  };
}

/** The playbook's stored settings; anything unreadable counts as the defaults. */
export function readSettings(stored: unknown): PlaybookSettings {
  const parsed = playbookSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : playbookSettingsSchema.parse({});
}

export async function requirePlaybook(db: Db | Tx, playbookId: string) {
  const playbook = await repo.findPlaybook(db, playbookId);
  if (!playbook) throw notFound("The playbook");
  return playbook;
}

// ---- Creating ----------------------------------------------------------------------------

export async function createPlaybook(
  db: Db,
  who: WhoOrName,
  input: z.output<typeof createPlaybookInput>,
): Promise<{ id: string; name: string }> {
  const document: PlaybookDocument = {
    name: input.name,
    description: input.description,
    agentLabel: input.agentLabel,
    sections: DEFAULT_SECTIONS.map((section) => ({ name: section.name, slug: section.slug, bullets: [] })),
    hints: {},
  };
  const created = await createFromDocument(db, who, document, {
    name: input.name,
    format: "ace",
    reason: "Created with the ACE default sections",
    action: "playbook.create",
  });
  return { id: created.playbookId, name: created.name };
}

interface CreateOptions {
  name: string;
  description?: string;
  agentLabel?: string;
  format: PlaybookFormat;
  reason: string;
  /** What the audit log calls it: a new empty playbook, or an imported file. */
  action: "playbook.create" | "playbook.import";
}

export async function createFromDocument(
  db: Db,
  author: WhoOrName,
  document: PlaybookDocument,
  options: CreateOptions,
): Promise<ImportResult> {
  const who = whoOf(author);
  if (await repo.findPlaybookByName(db, options.name)) {
    throw new AppError("CONFLICT", `A playbook named "${options.name}" already exists. Choose another name, or import into that playbook.`);
  }
  const { sections, bullets } = rowsFromDocument(document);
  const ids = bullets.map(({ row }) => row.externalId);
  const parsedSettings = playbookSettingsSchema.parse(document.settings ?? {});
  // Without redaction or retention settings of its own (none in the file), a new playbook follows the studio default.
  const settings = withoutKeys(
    parsedSettings,
    STUDIO_DEFAULTED.filter((key) => !(key === "redaction" ? hasOwnRedaction : hasOwnRetention)(document.settings)),
  );
  const changes: VersionChange[] = [
    ...sections.map((section): VersionChange => ({ entity: "section", id: section.id, before: null, after: sectionStateOf(section) })),
    ...bullets.map(({ state }): VersionChange => ({ entity: "bullet", id: state.externalId, before: null, after: state })),
  ];
  try {
    return await db.$transaction(async (tx) => {
      const playbook = await repo.insertPlaybook(tx, {
        id: crypto.randomUUID(),
        name: options.name,
        description: options.description ?? document.description ?? "",
        agentLabel: options.agentLabel ?? document.agentLabel ?? "",
        settings: settings as Prisma.InputJsonObject,
        sourceFormat: toDbFormat(options.format),
        formatHints: document.hints as Prisma.InputJsonObject,
        nextBulletNumber: Math.max(highestIdNumber(ids), document.lastIdNumber ?? 0) + 1,
        version: 1,
      });
      await repo.insertSections(tx, playbook.id, sections);
      await repo.insertBullets(
        tx,
        playbook.id,
        bullets.map(({ row }) => row),
      );
      await recordVersion(tx, {
        playbookId: playbook.id,
        number: 1,
        author: who.actor,
        reason: options.reason,
        changes,
        deltaId: null,
      });
      const bulletCount = bullets.filter(({ state }) => state.status === "active").length;
      await recordAudit(tx, who.audit, {
        action: options.action,
        target: { type: "playbook", id: playbook.id, label: playbook.name },
        playbookId: playbook.id,
        after: { version: 1, format: options.format, sections: sections.length, bullets: bulletCount, reason: options.reason },
      });
      return {
        playbookId: playbook.id,
        name: playbook.name,
        format: options.format,
        sectionCount: sections.length,
        bulletCount,
        version: 1,
        warnings: [],
      };
    }, WRITE_TRANSACTION);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new AppError("CONFLICT", `A playbook named "${options.name}" was created at the same moment. Choose another name.`);
    }
    throw error;
  }
}

// ---- Settings ----------------------------------------------------------------------------

function describeSetting(value: unknown): string {
  if (value === null) return "none";
  if (typeof value === "boolean") return value ? "on" : "off";
  return String(value);
}

/** Settings kept as nested objects, compared key by key ("pruning.enabled", "redaction.emails"). */
const NESTED_SETTINGS = ["pruning", "redaction", "retention"] as const;
type NestedSetting = (typeof NESTED_SETTINGS)[number];
const isNested = (key: string): key is NestedSetting => (NESTED_SETTINGS as readonly string[]).includes(key);

/** Every setting as a flat key: { autoApply: false, "pruning.enabled": false, "redaction.customPatterns": [] }. */
function flatSettings(settings: PlaybookSettings): Map<string, unknown> {
  const flat = new Map<string, unknown>();
  for (const [key, value] of Object.entries(settings)) {
    if (isNested(key)) for (const [inner, innerValue] of Object.entries(value as object)) flat.set(`${key}.${inner}`, innerValue);
    else flat.set(key, value);
  }
  return flat;
}

const sameSetting = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

function describeChangedSetting(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((item: { name?: string }) => item.name ?? "?").join(" ");
  return describeSetting(value);
}

/** The settings a change touched, as they were (side "before") or became: { autoApply: true, "pruning.enabled": true }. */
function changedSettings(before: PlaybookSettings, after: PlaybookSettings, side: "before" | "after"): Record<string, unknown> {
  const [was, is] = [flatSettings(before), flatSettings(after)];
  const summary: Record<string, unknown> = {};
  for (const [key, value] of is) if (!sameSetting(was.get(key), value)) summary[key] = side === "before" ? was.get(key) : value;
  return summary;
}

/**
 * Changes some curation settings. The change is recorded as a version without bullet changes, so
 * the history says who turned auto-apply or pruning on, and when.
 */
export async function updateSettings(
  db: Db,
  author: WhoOrName,
  input: z.output<typeof updateSettingsInput>,
): Promise<UpdateSettingsResult> {
  const who = whoOf(author);
  const result = await db.$transaction(async (tx) => {
    const playbook = await requirePlaybook(tx, input.playbookId);
    // A playbook that follows a studio default starts from it when that setting is changed here.
    const before = await effectiveSettings(tx, playbook.settings);
    const { pruning, redaction, retention, ...rest } = input.settings;
    const after = playbookSettingsSchema.parse({
      ...before,
      ...rest,
      pruning: { ...before.pruning, ...pruning },
      redaction: { ...before.redaction, ...redaction },
      // null: back to the studio default.
      retention: retention === null ? await readStudioRetention(tx) : { ...before.retention, ...retention },
    });
    const was = flatSettings(before);
    const changed = [...flatSettings(after)].flatMap(([key, value]) =>
      sameSetting(was.get(key), value) ? [] : [`${key} ${describeChangedSetting(was.get(key))} → ${describeChangedSetting(value)}`],
    );
    const ownRetention = retention === undefined ? hasOwnRetention(playbook.settings) : retention !== null;
    // Following the studio default again is a change even when today's days are the same.
    if (ownRetention !== hasOwnRetention(playbook.settings))
      changed.push(ownRetention ? "retention set for this playbook" : "retention follows the studio default");
    if (changed.length === 0) return { settings: after, version: playbook.version, changed };
    if (!(await repo.bumpVersion(tx, playbook.id, playbook.version))) {
      throw new AppError("CONFLICT", "The playbook changed while saving its settings. Nothing was saved; reload and try again.");
    }
    // A playbook without redaction or retention settings of its own follows the studio default until one is set here.
    const followsStudio = [
      ...(redaction === undefined && !hasOwnRedaction(playbook.settings) ? ["redaction"] : []),
      ...(ownRetention ? [] : ["retention"]),
    ];
    const saved = withoutKeys(after, followsStudio);
    await repo.updateSettings(tx, playbook.id, saved as unknown as Prisma.InputJsonObject);
    await recordVersion(tx, {
      playbookId: playbook.id,
      number: playbook.version + 1,
      author: who.actor,
      reason: `Settings changed: ${changed.join(", ")}`,
      changes: [],
      deltaId: null,
    });
    await recordAudit(tx, who.audit, {
      action: "settings.update",
      target: { type: "playbook", id: playbook.id, label: playbook.name },
      playbookId: playbook.id,
      before: changedSettings(before, after, "before"),
      after: { ...changedSettings(before, after, "after"), version: playbook.version + 1 },
    });
    return { settings: after, version: playbook.version + 1, changed };
  }, WRITE_TRANSACTION);
  // The budget of agents' context comes from the settings.
  forgetHead(db, input.playbookId);
  return result;
}
