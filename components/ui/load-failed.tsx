"use client";
// "The <things> could not be loaded" with the reason and a retry, for a list whose query failed.
import { RotateCw } from "lucide-react";
import { errorMessage } from "@/components/ui/errors";
import { Button } from "./button";
import { Notice } from "./notice";

export function LoadFailed({ what, error, onRetry }: { what: string; error: unknown; onRetry: () => void }) {
  return (
    <Notice
      tone="danger"
      title={`The ${what} could not be loaded`}
      actions={
        <Button size="sm" onClick={onRetry}>
          <RotateCw aria-hidden /> Try again
        </Button>
      }
    >
      {errorMessage(error)}
    </Notice>
  );
}
