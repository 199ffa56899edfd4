// Thin procedures of the storage report: admins only, read only.
import { adminProcedure, createTRPCRouter } from "@/server/trpc/init";
import * as service from "./service";

export const storageRouter = createTRPCRouter({
  report: adminProcedure.meta({ playbook: "studio" }).query(({ ctx }) => service.storageReport(ctx.db)),
});
