// Accounts: sign-in and sign-out, the first admin, invites, roles, disabling and deleting users,
// passwords and sessions. Every change writes its audit entry in the same transaction.
import { forgetVerifiedKeysOfUser, revokeKeysOfUser } from "@/server/apikeys/service";
import { recordAudit, type AuditSource } from "@/server/audit/record";
import type { AuditActor } from "@/server/audit/schemas";
import type { Db, Tx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import type { AuthSettings } from "./config";
import { hashPassword, spendVerificationTime, verifyPassword } from "./password";
import { checkedAcceptInviteInput, checkedChangePasswordInput, checkedCreateUserInput, checkedSetupInput } from "./password-policy";
import type { Principal } from "./principal";
import { clearFailedSignIns, countFailedSignIn, firstInWindow, signInLockout, type Lockout } from "./rate-limit";
import * as repo from "./repository";
import type { RequestInfo } from "./request";
import {
  acceptInviteInput,
  changePasswordInput,
  createUserInput,
  INVITE_DAYS,
  inviteUserInput,
  setRoleInput,
  setupInput,
  signInInput,
  type InviteInfo,
  type InviteLink,
  type SessionListItem,
  type SignedIn,
  type UserListItem,
} from "./schemas";
import { startSession, type NewSession } from "./sessions";
import { newToken, tokenHash } from "./tokens";
import type { z } from "zod";

const DAY_MS = 24 * 60 * 60_000;

type UserPrincipal = Extract<Principal, { kind: "user" }>;

export interface SignInResult {
  user: SignedIn;
  session: NewSession;
}

function signedIn(user: repo.UserRecord): SignedIn {
  return { userId: user.id, email: user.email, name: user.name, role: user.role };
}

function userActor(user: Pick<repo.UserRecord, "id" | "email">): AuditActor {
  return { kind: "user", id: user.id, name: user.email };
}

function sourceOf(actor: AuditActor, request: RequestInfo): AuditSource {
  return { actor, requestId: request.id, ip: request.ip };
}

function userTarget(user: Pick<repo.UserRecord, "id" | "email">) {
  return { type: "user", id: user.id, label: user.email };
}

function lockedOut(lockout: Lockout): AppError {
  return new AppError("RATE_LIMITED", lockout.message, { details: { retryAfterSeconds: lockout.retryAfterSeconds } });
}

const ACCOUNT_DISABLED = "This account is disabled. Ask an admin to enable it.";

// ---- Sign-in and sign-out --------------------------------------------------------------------------

const WRONG_CREDENTIALS = "The email or the password is wrong. Check both and try again.";

/** A failed sign-in's audit entry: under the account's id when the email names one. */
async function auditFailedSignIn(db: Db, request: RequestInfo, email: string, user: repo.UserRecord | null, reason: string): Promise<void> {
  await recordAudit(db, sourceOf({ kind: "user", id: user?.id ?? null, name: email }, request), {
    action: "session.sign_in_failed",
    target: user ? userTarget(user) : { type: "user", id: null, label: email },
    after: { reason },
  });
}

async function refuseSignIn(db: Db, request: RequestInfo, email: string, user: repo.UserRecord | null, reason: string): Promise<never> {
  await countFailedSignIn(db, email, request.ip);
  await auditFailedSignIn(db, request, email, user, reason);
  throw new AppError("UNAUTHORIZED", WRONG_CREDENTIALS);
}

/** Starts the user's session and notes the sign-in; the caller's transaction writes its audit entry. */
async function startSignedIn(
  tx: Tx,
  user: repo.UserRecord,
  request: RequestInfo,
  settings: Pick<AuthSettings, "sessionDays">,
): Promise<SignInResult> {
  const session = await startSession(tx, user.id, request, settings);
  await repo.updateUser(tx, user.id, { lastSignInAt: new Date() });
  return { user: signedIn(user), session };
}

export async function signIn(
  db: Db,
  request: RequestInfo,
  settings: Pick<AuthSettings, "sessionDays">,
  raw: z.input<typeof signInInput>,
): Promise<SignInResult> {
  const { email, password } = signInInput.parse(raw);
  const lockout = await signInLockout(db, email, request.ip);
  if (lockout) {
    if (await firstInWindow(db, `sign-in-locked:${email}:${request.ip ?? "-"}`)) {
      await auditFailedSignIn(db, request, email, null, "locked out (too many failed sign-ins)");
    }
    throw lockedOut(lockout);
  }
  const user = await repo.findUserByEmail(db, email);
  if (!user?.passwordHash) {
    await spendVerificationTime(password);
    return refuseSignIn(db, request, email, user, user ? "no password set yet (invite not accepted)" : "no account with this email");
  }
  if (!(await verifyPassword(user.passwordHash, password))) return refuseSignIn(db, request, email, user, "wrong password");
  if (user.disabledAt) {
    await auditFailedSignIn(db, request, user.email, user, "account disabled");
    throw new AppError("FORBIDDEN", ACCOUNT_DISABLED);
  }
  await clearFailedSignIns(db, email);
  return db.$transaction(async (tx) => {
    const result = await startSignedIn(tx, user, request, settings);
    await recordAudit(tx, sourceOf(userActor(user), request), { action: "session.sign_in", target: userTarget(user) });
    return result;
  });
}

export async function signOut(db: Db, request: RequestInfo, principal: Principal): Promise<void> {
  if (principal.kind !== "user" || !principal.sessionId) return;
  const sessionId = principal.sessionId;
  await db.$transaction(async (tx) => {
    if ((await repo.deleteSession(tx, sessionId)) === 0) return;
    await recordAudit(tx, sourceOf(userActor({ id: principal.userId, email: principal.email }), request), {
      action: "session.sign_out",
      target: { type: "user", id: principal.userId, label: principal.email },
    });
  });
}

// ---- The first admin -------------------------------------------------------------------------------

export async function setupFirstAdmin(
  db: Db,
  request: RequestInfo,
  principal: Principal,
  settings: Pick<AuthSettings, "sessionDays">,
  raw: z.input<typeof setupInput>,
): Promise<SignInResult> {
  const input = checkedSetupInput.parse(raw);
  const adminExists = () => new AppError("CONFLICT", "An admin account exists already. Sign in instead.");
  if (await repo.anyUserExists(db)) throw adminExists();
  const viaToken = principal.kind !== "local";
  if (viaToken) {
    const lockout = await signInLockout(db, "(setup)", request.ip);
    if (lockout) throw lockedOut(lockout);
    if (!input.setupToken || !(await repo.setupTokenExists(db, tokenHash(input.setupToken)))) {
      await countFailedSignIn(db, "(setup)", request.ip);
      throw new AppError(
        "FORBIDDEN",
        input.setupToken
          ? "That setup token is not right. Copy the one the server printed to its log at start (a restart prints a new one)."
          : "Enter the setup token the server printed to its log at start.",
      );
    }
  }
  const passwordHash = await hashPassword(input.password);
  const result = await db.$transaction(async (tx) => {
    await repo.lockAccounts(tx);
    if (await repo.anyUserExists(tx)) throw adminExists();
    const user = await repo.createUser(tx, { email: input.email, name: input.name, role: "admin", passwordHash });
    await repo.deleteAllSetupTokens(tx);
    const actor: AuditActor = viaToken
      ? { kind: "system", id: null, name: "setup token" }
      : { kind: "local", id: null, name: principal.kind === "local" ? principal.name : "local user" };
    await recordAudit(tx, sourceOf(actor, request), {
      action: "user.setup",
      target: userTarget(user),
      after: { email: user.email, role: user.role },
    });
    return startSignedIn(tx, user, request, settings);
  });
  return result;
}

/** Stores a setup token's hash (the server prints the token at start); several may be valid at once. */
export async function addSetupToken(db: Db, token: string): Promise<void> {
  await repo.addSetupToken(db, tokenHash(token));
}

// ---- Invites ------------------------------------------------------------------------------------------

async function issueInvite(tx: Tx, user: repo.UserRecord, createdBy: string): Promise<InviteLink> {
  const token = newToken();
  const expiresAt = new Date(Date.now() + INVITE_DAYS * DAY_MS);
  await repo.replaceInvite(tx, { id: tokenHash(token), userId: user.id, expiresAt, createdBy });
  return { userId: user.id, email: user.email, path: `/invite/${token}`, expiresAt };
}

export async function inviteUser(db: Db, source: AuditSource, raw: z.input<typeof inviteUserInput>): Promise<InviteLink> {
  const input = inviteUserInput.parse(raw);
  const link = await db.$transaction(async (tx) => {
    if (await repo.findUserByEmail(tx, input.email)) {
      throw new AppError("CONFLICT", `${input.email} has an account already. Send a new link from its row instead.`);
    }
    // The first account ends the no-sign-in mode: it must be one the person inviting can sign in with.
    if (!(await repo.anyUserExists(tx))) {
      throw new AppError("CONFLICT", "Create your own admin account first (Set up sign-in), then invite others.");
    }
    const user = await repo.createUser(tx, { email: input.email, name: input.name, role: input.role, passwordHash: null });
    const issued = await issueInvite(tx, user, source.actor.name);
    await recordAudit(tx, source, {
      action: "user.invite",
      target: userTarget(user),
      after: { email: user.email, role: user.role, expiresAt: issued.expiresAt },
    });
    return issued;
  });
  return link;
}

/** A new one-time link for an existing user (the old one stops working): also how an admin resets a password. */
export async function reissueInvite(db: Db, source: AuditSource, userId: string): Promise<InviteLink> {
  return db.$transaction(async (tx) => {
    const user = await repo.findUserById(tx, userId);
    if (!user) throw notFound("That user");
    const link = await issueInvite(tx, user, source.actor.name);
    await recordAudit(tx, source, {
      action: "user.invite",
      target: userTarget(user),
      after: { reset: user.passwordHash !== null, expiresAt: link.expiresAt },
    });
    return link;
  });
}

const INVALID_INVITE = "This link is not valid any more: it was used, replaced by a newer link, or it expired. Ask an admin for a new one.";

export async function inviteInfo(db: Db, token: string): Promise<InviteInfo> {
  const invite = await repo.findInvite(db, tokenHash(token));
  if (!invite || invite.expiresAt <= new Date()) throw new AppError("NOT_FOUND", INVALID_INVITE);
  if (invite.user.disabledAt) throw new AppError("FORBIDDEN", ACCOUNT_DISABLED);
  return { email: invite.user.email, name: invite.user.name, reset: invite.user.passwordHash !== null };
}

export async function acceptInvite(
  db: Db,
  request: RequestInfo,
  settings: Pick<AuthSettings, "sessionDays">,
  raw: z.input<typeof acceptInviteInput>,
): Promise<SignInResult> {
  const input = checkedAcceptInviteInput.parse(raw);
  const id = tokenHash(input.token);
  const passwordHash = await hashPassword(input.password);
  return db.$transaction(async (tx) => {
    const invite = await repo.findInvite(tx, id);
    if (!invite || invite.expiresAt <= new Date() || !(await repo.takeInvite(tx, id))) throw new AppError("NOT_FOUND", INVALID_INVITE);
    if (invite.user.disabledAt) throw new AppError("FORBIDDEN", ACCOUNT_DISABLED);
    const reset = invite.user.passwordHash !== null;
    const user = await repo.updateUser(tx, invite.user.id, {
      passwordHash,
      lastSignInAt: new Date(),
      ...(input.name ? { name: input.name } : {}),
    });
    if (reset) await repo.deleteSessionsOfUser(tx, user.id);
    await recordAudit(tx, sourceOf(userActor(user), request), { action: "user.invite_accept", target: userTarget(user), after: { reset } });
    const session = await startSession(tx, user.id, request, settings);
    return { user: signedIn(user), session };
  });
}

// ---- Passwords and sessions of the signed-in user ------------------------------------------------------

export async function changePassword(
  db: Db,
  request: RequestInfo,
  principal: UserPrincipal,
  raw: z.input<typeof changePasswordInput>,
): Promise<void> {
  const input = checkedChangePasswordInput.parse(raw);
  const lockout = await signInLockout(db, principal.email, request.ip);
  if (lockout) throw lockedOut(lockout);
  const user = await repo.findUserById(db, principal.userId);
  if (!user?.passwordHash) throw notFound("Your account");
  if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
    await countFailedSignIn(db, user.email, request.ip);
    throw new AppError("INVALID_INPUT", "Your current password is not right.", { details: { field: "currentPassword" } });
  }
  const passwordHash = await hashPassword(input.newPassword);
  await db.$transaction(async (tx) => {
    await repo.updateUser(tx, user.id, { passwordHash });
    const ended = await repo.deleteSessionsOfUser(tx, user.id, principal.sessionId ?? undefined);
    await recordAudit(tx, sourceOf(userActor(user), request), {
      action: "user.password",
      target: userTarget(user),
      after: { otherSessionsEnded: ended },
    });
  });
}

export async function listOwnSessions(db: Db, principal: UserPrincipal): Promise<SessionListItem[]> {
  const sessions = await repo.listSessionsOfUser(db, principal.userId, new Date());
  return sessions.map((session) => ({ ...session, current: session.id === principal.sessionId }));
}

export async function endOwnSession(db: Db, request: RequestInfo, principal: UserPrincipal, sessionId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    if ((await repo.deleteSessionOfUser(tx, principal.userId, sessionId)) === 0) throw notFound("That session");
    await recordAudit(tx, sourceOf(userActor({ id: principal.userId, email: principal.email }), request), {
      action: "session.revoke",
      target: { type: "user", id: principal.userId, label: principal.email },
      after: { sessions: 1 },
    });
  });
}

// ---- Users (admins) ------------------------------------------------------------------------------------

export async function listUsers(db: Db): Promise<UserListItem[]> {
  return repo.listUsers(db, new Date());
}

export async function createUser(db: Db, source: AuditSource, raw: z.input<typeof createUserInput>): Promise<SignedIn> {
  const input = checkedCreateUserInput.parse(raw);
  const passwordHash = await hashPassword(input.password);
  const user = await db.$transaction(async (tx) => {
    await repo.lockAccounts(tx);
    if (await repo.findUserByEmail(tx, input.email)) throw new AppError("CONFLICT", `${input.email} has an account already.`);
    if (input.role !== "admin" && !(await repo.anyUserExists(tx))) {
      throw new AppError("CONFLICT", "The first account must be an admin, or nobody could manage the others.");
    }
    const created = await repo.createUser(tx, { email: input.email, name: input.name, role: input.role, passwordHash });
    await repo.deleteAllSetupTokens(tx);
    await recordAudit(tx, source, {
      action: "user.create",
      target: userTarget(created),
      after: { email: created.email, role: created.role },
    });
    return created;
  });
  return signedIn(user);
}

async function loadForChange(tx: Tx, userId: string): Promise<repo.UserRecord> {
  await repo.lockAccounts(tx);
  const user = await repo.findUserById(tx, userId);
  if (!user) throw notFound("That user");
  return user;
}

async function keepAnAdmin(tx: Tx, user: repo.UserRecord, what: string): Promise<void> {
  if (user.role === "admin" && !user.disabledAt && (await repo.countActiveAdmins(tx, user.id)) === 0) {
    throw new AppError("CONFLICT", `${user.email} is the last active admin, so it cannot be ${what}. Make someone else an admin first.`);
  }
}

function refuseSelf(actingUserId: string | null, user: repo.UserRecord, what: string): void {
  if (actingUserId === user.id) throw new AppError("CONFLICT", `You cannot ${what} your own account. Ask another admin.`);
}

export async function setRole(db: Db, source: AuditSource, raw: z.input<typeof setRoleInput>): Promise<SignedIn> {
  const input = setRoleInput.parse(raw);
  const changed = await db.$transaction(async (tx) => {
    const user = await loadForChange(tx, input.userId);
    if (user.role === input.role) return signedIn(user);
    if (input.role !== "admin") await keepAnAdmin(tx, user, `made a ${input.role}`);
    const updated = await repo.updateUser(tx, user.id, { role: input.role });
    await recordAudit(tx, source, {
      action: "user.role",
      target: userTarget(user),
      before: { role: user.role },
      after: { role: updated.role },
    });
    return signedIn(updated);
  });
  // The user's keys hold admin powers only while they are an admin: re-read them on their next request.
  forgetVerifiedKeysOfUser(db, changed.userId);
  return changed;
}

export async function disableUser(db: Db, source: AuditSource, actingUserId: string | null, userId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const user = await loadForChange(tx, userId);
    refuseSelf(actingUserId, user, "disable");
    if (user.disabledAt) return;
    await keepAnAdmin(tx, user, "disabled");
    await repo.updateUser(tx, user.id, { disabledAt: new Date() });
    const ended = await repo.deleteSessionsOfUser(tx, user.id);
    const keysRevoked = await revokeKeysOfUser(tx, source, user.id, "creator disabled");
    await recordAudit(tx, source, {
      action: "user.disable",
      target: userTarget(user),
      before: { disabled: false },
      after: { disabled: true, sessionsEnded: ended, keysRevoked },
    });
  });
  forgetVerifiedKeysOfUser(db, userId);
}

export async function enableUser(db: Db, source: AuditSource, userId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const user = await loadForChange(tx, userId);
    if (!user.disabledAt) return;
    await repo.updateUser(tx, user.id, { disabledAt: null });
    await recordAudit(tx, source, {
      action: "user.enable",
      target: userTarget(user),
      before: { disabled: true },
      after: { disabled: false },
    });
  });
}

export async function deleteUser(db: Db, source: AuditSource, actingUserId: string | null, userId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const user = await loadForChange(tx, userId);
    refuseSelf(actingUserId, user, "delete");
    await keepAnAdmin(tx, user, "deleted");
    const keysRevoked = await revokeKeysOfUser(tx, source, user.id, "creator deleted");
    await repo.deleteUser(tx, user.id);
    await recordAudit(tx, source, {
      action: "user.delete",
      target: userTarget(user),
      before: { email: user.email, name: user.name, role: user.role },
      after: { keysRevoked },
    });
  });
  forgetVerifiedKeysOfUser(db, userId);
}

export async function endSessionsOfUser(db: Db, source: AuditSource, userId: string): Promise<{ ended: number }> {
  return db.$transaction(async (tx) => {
    const user = await repo.findUserById(tx, userId);
    if (!user) throw notFound("That user");
    const ended = await repo.deleteSessionsOfUser(tx, user.id);
    await recordAudit(tx, source, { action: "session.revoke", target: userTarget(user), after: { sessions: ended } });
    return { ended };
  });
}
