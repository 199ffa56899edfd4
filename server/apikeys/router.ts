// Thin procedures of API keys (Settings → API keys): admins only.
import { getAuthSettings } from "@/server/auth/config";
import { adminProcedure, createTRPCRouter } from "@/server/trpc/init";
import { z } from "zod";
import { apiKeyCreatorSchema, apiKeyIdInput, createApiKeyInput, createdApiKeySchema, transferApiKeyInput } from "./schemas";
import * as service from "./service";

export const apiKeyRouter = createTRPCRouter({
  list: adminProcedure.query(({ ctx }) => service.listApiKeys(ctx.db)),

  /** The answer holds the secret: shown once, never stored. */
  create: adminProcedure
    .input(createApiKeyInput)
    .output(createdApiKeySchema)
    .mutation(({ ctx, input }) => service.createApiKey(ctx.db, ctx.audit, getAuthSettings(), input)),

  revoke: adminProcedure
    .input(apiKeyIdInput)
    .output(z.object({ revokedAt: z.date() }))
    .mutation(({ ctx, input }) => service.revokeApiKey(ctx.db, ctx.audit, input.keyId)),

  /** Hands a key to another admin, whose role then bounds it (service keys that outlive a person). */
  transfer: adminProcedure
    .input(transferApiKeyInput)
    .output(z.object({ creator: apiKeyCreatorSchema }))
    .mutation(({ ctx, input }) => service.transferApiKey(ctx.db, ctx.audit, input)),
});
