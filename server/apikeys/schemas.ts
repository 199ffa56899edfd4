// API keys for agents and scripts: the scopes a key may hold, the form's input, the list's rows.
import { z } from "zod";

export const API_SCOPES = [
  "traces:write",
  "traces:read",
  "traces:delete",
  "context:read",
  "metrics:read",
  "experiments:read",
  "experiments:assign",
  "experiments:write",
  "playbooks:read",
  "playbooks:write",
  "proposals:write",
  "mcp",
  "admin",
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<ApiScope, string> = {
  "traces:write": "Post traces (POST /api/v1/traces).",
  "traces:read": "Export traces as JSON Lines (GET /api/v1/traces), e.g. for a subject-access request.",
  "traces:delete": "Delete a unit's, an external id's or a time range's traces (DELETE /api/v1/traces).",
  "context:read": "Fetch the compiled playbook an agent puts in its prompt.",
  "metrics:read": "Read metrics and evolution charts.",
  "experiments:read": "Read experiments and their results.",
  "experiments:assign": "Ask which variant a unit gets.",
  "experiments:write": "Create, start and stop experiments.",
  "playbooks:read": "Read playbooks, bullets and history.",
  "playbooks:write": "Import and change playbooks.",
  "proposals:write": "Propose deltas for review.",
  mcp: "Use the MCP endpoint.",
  admin: "Everything an admin can do, through the API (the CLI's account and key commands against a running server).",
};

export const apiScopeSchema = z.enum(API_SCOPES, { error: `Unknown scope. Scopes: ${API_SCOPES.join(", ")}.` });

export const API_KEY_NAME_MAX = 80;
export const MAX_KEY_EXPIRY_DAYS = 3650;

export const createApiKeyInput = z.object({
  name: z.string().trim().min(1, { error: 'Name the key after what uses it, e.g. "support agent (prod)".' }).max(API_KEY_NAME_MAX),
  scopes: z.array(apiScopeSchema).min(1, { error: "Choose at least one scope." }).max(API_SCOPES.length),
  /** "all", or the ids of the playbooks the key may touch. */
  playbooks: z.union([z.literal("all"), z.array(z.uuid()).min(1, { error: "Choose at least one playbook, or all." }).max(1000)]),
  expiresInDays: z.number().int().min(1).max(MAX_KEY_EXPIRY_DAYS).nullable().default(null),
  /** Requests a minute for this key; null: the server's ACE_API_RATE_LIMIT. */
  rateLimitPerMinute: z.number().int().min(1).max(10_000_000).nullable().default(null),
});
export type CreateApiKeyInput = z.input<typeof createApiKeyInput>;

export const apiKeyIdInput = z.object({ keyId: z.uuid({ error: "Unknown API key." }) });

/** Hands a key to another admin: its admin powers then depend on that admin (service keys that outlive a person). */
export const transferApiKeyInput = z.object({
  keyId: z.uuid({ error: "Unknown API key." }),
  toUserId: z.uuid({ error: "Choose the admin who takes the key over." }),
});
export type TransferApiKeyInput = z.input<typeof transferApiKeyInput>;

/**
 * Whose rights bound a key. user: its admin powers hold while that user is an admin (`admin`), and
 * it ends with their account (`gone`: deleted). unknown: a key from before creators were recorded
 * that matched no one; it keeps working until an admin transfers or revokes it.
 */
export const apiKeyOwnerSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user"), userId: z.string(), label: z.string(), admin: z.boolean(), gone: z.boolean() }),
  z.object({ kind: z.literal("local") }),
  z.object({ kind: z.literal("unknown") }),
]);
export type ApiKeyOwner = z.infer<typeof apiKeyOwnerSchema>;

/** Who created a key: its owner, or another key (whose owner it took). */
export const apiKeyCreatorSchema = z.union([
  apiKeyOwnerSchema,
  z.object({ kind: z.literal("apikey"), keyId: z.string(), name: z.string(), owner: apiKeyOwnerSchema }),
]);
export type ApiKeyCreator = z.infer<typeof apiKeyCreatorSchema>;

export const UNKNOWN_CREATOR_LABEL = "creator unknown: transfer or revoke";

function ownerLabel(owner: ApiKeyOwner): string {
  switch (owner.kind) {
    case "user":
      return owner.gone ? `${owner.label} (deleted)` : owner.label;
    case "local":
      return "local operator";
    case "unknown":
      return UNKNOWN_CREATOR_LABEL;
  }
}

/** As the API keys list shows it: a user's name, "local operator", "API key X (for Y)", or the unknown creator's call to act. */
export function creatorLabel(creator: ApiKeyCreator): string {
  if (creator.kind !== "apikey") return ownerLabel(creator);
  if (creator.owner.kind === "unknown") return `API key "${creator.name}" (${UNKNOWN_CREATOR_LABEL})`;
  const owner = creator.owner.kind === "user" && !creator.owner.gone ? `user ${creator.owner.label}` : ownerLabel(creator.owner);
  return `API key "${creator.name}" (for ${owner})`;
}

export type ApiKeyStatus = "active" | "expired" | "revoked";

export interface ApiKeyListItem {
  id: string;
  name: string;
  /** Enough of the key to recognise it (ace_abcd…wxyz), never enough to use it. */
  preview: string;
  scopes: ApiScope[];
  /** null: every playbook. */
  playbooks: { id: string; name: string | null }[] | null;
  rateLimitPerMinute: number | null;
  status: ApiKeyStatus;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** Why it was revoked when not by an admin's hand: "creator disabled", "creator deleted". */
  revokedReason: string | null;
  lastUsedAt: Date | null;
  /** The creator's name as written when the key was made (history; `creator` is what counts). */
  createdBy: string;
  creator: ApiKeyCreator;
  createdAt: Date;
}

export const createdApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  preview: z.string(),
  /** Shown once; only its keyed hash is stored. */
  secret: z.string(),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;
