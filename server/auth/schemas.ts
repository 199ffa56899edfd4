// Roles, who is signed in, and the inputs of the account forms: zod schemas and types shared by
// the client and the server.
import { z } from "zod";

// ---- Roles -------------------------------------------------------------------------------------

export const ROLES = ["viewer", "curator", "admin"] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES, { error: "Choose a role: viewer, curator or admin." });

export const ROLE_LABELS: Record<Role, string> = { viewer: "Viewer", curator: "Curator", admin: "Admin" };

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  viewer: "Reads everything and exports.",
  curator: "A viewer who also edits bullets, approves, rejects and rolls back, and runs the reflector and curator.",
  admin: "A curator who also manages users, API keys, settings and budgets, deletes playbooks and reads the audit log.",
};

const RANK: Record<Role, number> = { viewer: 0, curator: 1, admin: 2 };

export function roleAtLeast(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}

// ---- Who is looking ----------------------------------------------------------------------------

/** The person (or the local operator) behind a page, as pages and components see them. */
export type Identity =
  | { kind: "user"; userId: string; email: string; name: string; role: Role }
  /** No accounts on a loopback-bound studio (or ACE_AUTH=off): the operator of this computer, an admin. */
  | { kind: "local"; name: string; role: "admin" }
  | { kind: "anonymous" };

/**
 * open: the identity may use the studio. sign-in: accounts exist, sign in first. first-admin:
 * sign-in is required but no account exists yet; the first admin is created with the setup token.
 */
export type Gate = "open" | "sign-in" | "first-admin";

export interface SessionState {
  identity: Identity;
  gate: Gate;
  /** The studio runs without sign-in because it has no accounts and only this computer reaches it. */
  localMode: boolean;
  /** Creating the first admin needs the setup token from the server log (not when acting as the local admin). */
  setupNeedsToken: boolean;
  /** Whether any account exists. */
  usersExist: boolean;
}

// ---- Account inputs ----------------------------------------------------------------------------

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

export const emailSchema = z
  .string({ error: "Enter an email address." })
  .trim()
  .toLowerCase()
  .max(254, { error: "An email address has at most 254 characters." })
  .pipe(z.email({ error: "Enter an email address like name@example.com." }));

export const newPasswordSchema = z
  .string({ error: "Choose a password." })
  .min(PASSWORD_MIN_LENGTH, { error: `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.` })
  .max(PASSWORD_MAX_LENGTH, { error: `A password has at most ${PASSWORD_MAX_LENGTH} characters.` });

export const personNameSchema = z.string().trim().max(120, { error: "A name has at most 120 characters." }).default("");

const tokenSchema = z.string().trim().min(1, { error: "The link or token is missing." }).max(200);

export const signInInput = z.object({
  email: emailSchema,
  password: z.string().min(1, { error: "Enter your password." }).max(PASSWORD_MAX_LENGTH),
});

export const setupInput = z.object({
  email: emailSchema,
  name: personNameSchema,
  password: newPasswordSchema,
  /** Needed unless the request acts as the local admin. */
  setupToken: tokenSchema.optional(),
});

export const changePasswordInput = z.object({
  currentPassword: z.string().min(1, { error: "Enter your current password." }).max(PASSWORD_MAX_LENGTH),
  newPassword: newPasswordSchema,
});

export const inviteTokenInput = z.object({ token: tokenSchema });

export const acceptInviteInput = z.object({ token: tokenSchema, name: personNameSchema, password: newPasswordSchema });

export const sessionIdInput = z.object({ sessionId: z.string().regex(/^[0-9a-f]{64}$/, { error: "Unknown session." }) });

export const inviteUserInput = z.object({ email: emailSchema, name: personNameSchema, role: roleSchema });

export const createUserInput = z.object({ email: emailSchema, name: personNameSchema, role: roleSchema, password: newPasswordSchema });

export const userIdInput = z.object({ userId: z.uuid({ error: "Unknown user." }) });

export const setRoleInput = z.object({ userId: z.uuid({ error: "Unknown user." }), role: roleSchema });

// ---- Outputs -----------------------------------------------------------------------------------

export const signedInSchema = z.object({ userId: z.string(), email: z.string(), name: z.string(), role: roleSchema });
export type SignedIn = z.infer<typeof signedInSchema>;

export const inviteLinkSchema = z.object({
  userId: z.string(),
  email: z.string(),
  /** Path of the one-time link, e.g. /invite/abc…; the page adds its own origin. */
  path: z.string(),
  expiresAt: z.date(),
});
export type InviteLink = z.infer<typeof inviteLinkSchema>;

export const okSchema = z.object({ ok: z.literal(true) });

export interface InviteInfo {
  email: string;
  name: string;
  /** A new link for an account that already had a password: accepting it sets a new one. */
  reset: boolean;
}

export interface UserListItem {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  hasPassword: boolean;
  pendingInviteExpiresAt: Date | null;
  activeSessions: number;
  lastSignInAt: Date | null;
  createdAt: Date;
}

export interface SessionListItem {
  id: string;
  current: boolean;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
}

/** How long an invite link stays valid. */
export const INVITE_DAYS = 7;
