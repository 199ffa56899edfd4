// Thin procedures of accounts: the session and sign-in (auth), and user administration (users).
import { z } from "zod";
import { accountProcedure, adminProcedure, createTRPCRouter, publicProcedure, type Context } from "@/server/trpc/init";
import { usersExist } from "./authenticate";
import { getAuthSettings } from "./config";
import { clearedSessionCookie, sessionCookie } from "./cookies";
import { checkedAcceptInviteInput, checkedChangePasswordInput, checkedCreateUserInput, checkedSetupInput } from "./password-policy";
import { sessionState } from "./principal";
import {
  inviteLinkSchema,
  inviteTokenInput,
  inviteUserInput,
  okSchema,
  sessionIdInput,
  setRoleInput,
  signedInSchema,
  signInInput,
  userIdInput,
  type SessionState,
} from "./schemas";
import * as service from "./service";

function setSession(ctx: Context, result: service.SignInResult) {
  ctx.resHeaders?.append("set-cookie", sessionCookie(result.session.token, result.session.expiresAt, ctx.request.https));
  return result.user;
}

export const authRouter = createTRPCRouter({
  /** Who is looking, and which page they need first (sign-in, the first admin) if they may not look yet. */
  session: publicProcedure.query(async ({ ctx }): Promise<SessionState> => sessionState(ctx.principal, await usersExist(ctx.db))),

  signIn: publicProcedure
    .input(signInInput)
    .output(signedInSchema)
    .mutation(async ({ ctx, input }) => setSession(ctx, await service.signIn(ctx.db, ctx.request, getAuthSettings(), input))),

  /** Ends this browser's session (and clears the cookie even when the session had already ended). */
  signOut: publicProcedure.output(okSchema).mutation(async ({ ctx }) => {
    await service.signOut(ctx.db, ctx.request, ctx.principal);
    ctx.resHeaders?.append("set-cookie", clearedSessionCookie(ctx.request.https));
    return { ok: true as const };
  }),

  /** The first admin: as the local operator, or with the setup token the server printed. */
  setup: publicProcedure
    .input(checkedSetupInput)
    .output(signedInSchema)
    .mutation(async ({ ctx, input }) =>
      setSession(ctx, await service.setupFirstAdmin(ctx.db, ctx.request, ctx.principal, getAuthSettings(), input)),
    ),

  inviteInfo: publicProcedure.input(inviteTokenInput).query(({ ctx, input }) => service.inviteInfo(ctx.db, input.token)),

  acceptInvite: publicProcedure
    .input(checkedAcceptInviteInput)
    .output(signedInSchema)
    .mutation(async ({ ctx, input }) => setSession(ctx, await service.acceptInvite(ctx.db, ctx.request, getAuthSettings(), input))),

  changePassword: accountProcedure
    .input(checkedChangePasswordInput)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      await service.changePassword(ctx.db, ctx.request, ctx.principal, input);
      return { ok: true as const };
    }),

  sessions: accountProcedure.query(({ ctx }) => service.listOwnSessions(ctx.db, ctx.principal)),

  endSession: accountProcedure
    .input(sessionIdInput)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      await service.endOwnSession(ctx.db, ctx.request, ctx.principal, input.sessionId);
      return { ok: true as const };
    }),
});

const actingUserId = (ctx: Context) => (ctx.principal.kind === "user" ? ctx.principal.userId : null);

export const userRouter = createTRPCRouter({
  list: adminProcedure.meta({ playbook: "studio" }).query(({ ctx }) => service.listUsers(ctx.db)),

  /** A new account with a one-time link to set its password. */
  invite: adminProcedure
    .meta({ playbook: "studio" })
    .input(inviteUserInput)
    .output(inviteLinkSchema)
    .mutation(({ ctx, input }) => service.inviteUser(ctx.db, ctx.audit, input)),

  /** A new link for an existing account (the old one stops working); accepting it sets a new password. */
  reinvite: adminProcedure
    .meta({ playbook: "studio" })
    .input(userIdInput)
    .output(inviteLinkSchema)
    .mutation(({ ctx, input }) => service.reissueInvite(ctx.db, ctx.audit, input.userId)),

  /** An account with a password (the CLI's user create). */
  create: adminProcedure
    .meta({ playbook: "studio" })
    .input(checkedCreateUserInput)
    .output(signedInSchema)
    .mutation(({ ctx, input }) => service.createUser(ctx.db, ctx.audit, input)),

  setRole: adminProcedure
    .meta({ playbook: "studio" })
    .input(setRoleInput)
    .output(signedInSchema)
    .mutation(({ ctx, input }) => service.setRole(ctx.db, ctx.audit, input)),

  disable: adminProcedure
    .meta({ playbook: "studio" })
    .input(userIdInput)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      await service.disableUser(ctx.db, ctx.audit, actingUserId(ctx), input.userId);
      return { ok: true as const };
    }),

  enable: adminProcedure
    .meta({ playbook: "studio" })
    .input(userIdInput)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      await service.enableUser(ctx.db, ctx.audit, input.userId);
      return { ok: true as const };
    }),

  delete: adminProcedure
    .meta({ playbook: "studio" })
    .input(userIdInput)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      await service.deleteUser(ctx.db, ctx.audit, actingUserId(ctx), input.userId);
      return { ok: true as const };
    }),

  /** Signs a user out everywhere. */
  endSessions: adminProcedure
    .meta({ playbook: "studio" })
    .input(userIdInput)
    .output(z.object({ ended: z.number() }))
    .mutation(({ ctx, input }) => service.endSessionsOfUser(ctx.db, ctx.audit, input.userId)),
});
