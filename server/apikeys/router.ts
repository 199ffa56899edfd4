// Thin procedures of API keys (Settings → API keys): admins only.
import { checkNewKeyRights, playbookScopeOf, visibleTo } from "@/server/access/restriction";
import { getAuthSettings } from "@/server/auth/config";
import { adminProcedure, createTRPCRouter } from "@/server/trpc/init";
import { z } from "zod";
import { apiKeyCreatorSchema, apiKeyIdInput, createApiKeyInput, createdApiKeySchema, transferApiKeyInput } from "./schemas";
import * as service from "./service";

export const apiKeyRouter = createTRPCRouter({
  /** A restricted caller sees the keys restricted to its own playbooks only. */
  list: adminProcedure.meta({ playbook: "listed" }).query(async ({ ctx }) => {
    const scope = playbookScopeOf(ctx.principal);
    const keys = await service.listApiKeys(ctx.db);
    if (scope === "all") return keys;
    return keys.filter(
      (key) => key.playbooks !== null && visibleTo(scope, key.playbooks, (playbook) => playbook.id).length === key.playbooks.length,
    );
  }),

  /** The answer holds the secret: shown once, never stored. */
  create: adminProcedure
    .meta({ playbook: "newApiKey" })
    .input(createApiKeyInput)
    .output(createdApiKeySchema)
    .mutation(async ({ ctx, input }) => {
      // No caller creates a key with more rights than its own (scopes, playbooks).
      await checkNewKeyRights(ctx.db, ctx.principal, { scopes: input.scopes, playbooks: input.playbooks });
      return service.createApiKey(ctx.db, ctx.audit, getAuthSettings(), input);
    }),

  revoke: adminProcedure
    .meta({ playbook: "apiKey" })
    .input(apiKeyIdInput)
    .output(z.object({ revokedAt: z.date() }))
    .mutation(({ ctx, input }) => service.revokeApiKey(ctx.db, ctx.audit, input.keyId)),

  /** Hands a key to another admin, whose role then bounds it (service keys that outlive a person). */
  transfer: adminProcedure
    .meta({ playbook: "studio" })
    .input(transferApiKeyInput)
    .output(z.object({ creator: apiKeyCreatorSchema }))
    .mutation(({ ctx, input }) => service.transferApiKey(ctx.db, ctx.audit, input)),
});
