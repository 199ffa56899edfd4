"use client";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function RunsError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorPanel error={error} retry={retry} title="The runs could not be loaded" />;
}
