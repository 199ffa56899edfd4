// Thin procedures of API keys (Settings → API keys): admins only.
import { getAuthSettings } from "@/server/auth/config";
import { adminProcedure, createTRPCRouter } from "@/server/trpc/init";
import { z } from "zod";
import { apiKeyIdInput, createApiKeyInput, createdApiKeySchema } from "./schemas";
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
});
