"use client";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function ReviewError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorPanel error={error} retry={retry} title="The review queue could not be loaded" />;
}
