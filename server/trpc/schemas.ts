// Limits of the tRPC endpoint (app/api/trpc), checked before tRPC reads a request; the one file of
// server/trpc that client code may import (its batch link sends at most MAX_TRPC_BATCH at once).
import { MAX_PROPOSAL_BODY_BYTES } from "../playbooks/schemas";

/** Procedures one batched request may call; the studio's pages batch a handful. */
export const MAX_TRPC_BATCH = 50;

/** The largest body: an import of a 25 MB playbook file with the JSON around it, as POST …/proposals takes. */
export const MAX_TRPC_BODY_BYTES = MAX_PROPOSAL_BODY_BYTES;
