"use client";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function ExperimentsError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorPanel error={error} retry={retry} title="The experiments could not be loaded" />;
}
