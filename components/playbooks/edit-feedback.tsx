"use client";
// What an edit reports back, shown next to the control that made it: the server's refusal in its
// own words (a conflict with a way to reload), or the warnings a saved edit passed with.
import { RefreshCw } from "lucide-react";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { findingText } from "@/components/shared/operation-findings";
import type { Finding } from "@/server/deltas/schemas";
import { errorMessage, isConflict } from "@/components/ui/errors";
import { bulletHref } from "@/components/ui/routes";

export function EditError({ error, onReset }: { error: unknown; onReset: () => void }) {
  const invalidate = useInvalidateCuration();
  if (!error) return null;
  const conflict = isConflict(error);
  return (
    <Notice
      tone={conflict ? "warning" : "danger"}
      compact
      title={conflict ? "Someone else changed this first; your edit was not saved." : "Not saved"}
      actions={
        conflict ? (
          <Button
            size="sm"
            variant="secondary"
            onClick={() => {
              onReset();
              void invalidate();
            }}
          >
            <RefreshCw aria-hidden /> Reload the bullet
          </Button>
        ) : null
      }
    >
      {/* The browser sends one operation per edit: "Operation 1 (add_section …):" would only be noise. */}
      {findingText(errorMessage(error))}
    </Notice>
  );
}

/** Warnings a saved edit passed with (near-duplicates above all), with a link to the other bullet. */
export function EditWarnings({ findings, playbookId }: { findings: readonly Finding[]; playbookId: string }) {
  const warnings = findings.filter((finding) => finding.severity === "warning" && finding.kind !== "no_change");
  if (warnings.length === 0) return null;
  return (
    <div className="flex flex-col gap-2">
      {warnings.map((finding, index) => (
        <Notice
          key={index}
          tone="warning"
          compact
          title={finding.kind === "near_duplicate" ? "Saved, but it looks like a near-duplicate" : "Saved, with a warning"}
        >
          {findingText(finding.message)}
          {finding.matchedBulletId ? (
            <>
              {" "}
              <Link href={bulletHref(playbookId, finding.matchedBulletId)} className="font-medium underline underline-offset-2">
                Open [{finding.matchedBulletId}]
              </Link>
            </>
          ) : null}
        </Notice>
      ))}
    </div>
  );
}
