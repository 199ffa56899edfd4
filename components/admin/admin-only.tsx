// Admin pages say plainly when the person looking is not an admin (the procedures refuse them anyway).
import type { ReactNode } from "react";
import { Notice } from "@/components/ui/notice";
import { getSession } from "@/server/trpc/rsc";

export async function AdminOnly({ what, children }: { what: string; children: ReactNode }) {
  const { identity } = await getSession();
  if (identity.kind !== "anonymous" && identity.role === "admin") return children;
  return (
    <div className="max-w-2xl pt-8">
      <Notice tone="info" title={`Only admins see ${what}`}>
        Ask an admin if you need something here.
      </Notice>
    </div>
  );
}
